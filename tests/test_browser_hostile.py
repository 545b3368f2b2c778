"""A hostile submission in the instructor's formgrader and in its feedback page, in Chromium.

Mallory's notebook tries every way to put live content into a page the instructor opens:
HTML with script and event handlers, JavaScript, SVG, LaTeX and Markdown outputs, an
iframe, forged image data and sizes, <base>/<meta>/CSS url(), a widget, a locked markdown
cell rewritten with script, markdown and raw cells of her own, forged widget state. Each
vector would make a request to ``zz-attacker.invalid`` (or to ``x``, an image's source) if it
ran or rendered. Formgrader runs in the instructor's Jupyter server's origin, where such a
script could use the Jupyter API as the instructor; the feedback page goes to the student.
The test records every request and dialog of both pages: none may come from her content,
and her work, the plot her code drew and the lesson's own prose still show. alice, honest,
submits the course's Spanish notebook: her feedback page is in Spanish, nbgrader's words included.

Mallory's outputs also carry TeX (links, boxes, extensions, in every delimiter and kind of output),
and her own first cell makes every question cell display a classmate's variant. Her graded
submission is then also filed under a student id that is markup (``MARKUP``, as a folder name
and in the gradebook: collect refuses such an id, a course may have one from before), and that
submission's formgrader page and feedback page are opened with MathJax served: nothing of hers is
typeset (the instructor's own math is), no script of hers runs, and the questions shown are her
own variants, drawn by the grader.
"""
from __future__ import annotations

import re
import shutil
import textwrap

import attacks
import nbformat
import pytest
from browser_helpers import TYPESET, browser, serve_mathjax, typeset_done  # noqa: F401  (a fixture)
from helpers import ROOT, exchange_home, fill, generate, nbgrader, read, solutions
from nbgrader.api import Gradebook
from pages import HOST

from autograder.judges import variants
from test_browser_instructor import ARTIFACTS, COURSE, NAME, start_view
from test_class_grading import autograder

from lessons import lab

pytestmark = [pytest.mark.slow, pytest.mark.browser]

PLOT = textwrap.dedent("""
    import matplotlib
    matplotlib.use("module://matplotlib_inline.backend_inline")
    import matplotlib.pyplot as plt
    plt.plot([3, 1, 2])
    plt.title("mallory's plot")
    plt.show()
    print("mallory's own words")
""")


MARKUP = "<img src=x onerror=alert(document.domain)>"  # a student id that is markup (no "/": a folder name)
MATH = "The step: $w \\leftarrow w - \\eta\\, g$, and the loss $$L = (w x - y)^2.$$"  # the instructor's


def with_instructors_math(root) -> None:
    """The course's lesson 3 gets a locked markdown cell of the instructor's with math in it."""
    path = root / "source" / NAME / f"{NAME}.ipynb"
    nb = read(path)
    cell = nbformat.v4.new_markdown_cell(MATH)
    cell.metadata["nbgrader"] = {"grade": False, "solution": False, "locked": True, "grade_id": "zz_math",
                                 "schema_version": 3}
    nb.cells.insert(1, cell)
    nbformat.write(nb, str(path))


def file_under_markup_id(root, env) -> str:
    """Mallory's graded submission filed again under ``MARKUP`` (its folders, its gradebook record
    and scores), and that submission's feedback made by nbgrader; its id in the gradebook."""
    for place in ("submitted", "autograded"):
        shutil.copytree(root / place / "mallory", root / place / MARKUP)
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        gb.add_student(MARKUP)
        gb.add_submission(NAME, MARKUP)
        for grade in gb.find_submission_notebook(NAME, NAME, "mallory").grades:
            copy = gb.find_grade(grade.name, NAME, NAME, MARKUP)
            copy.auto_score, copy.needs_manual_grade = grade.auto_score, grade.needs_manual_grade
        gb.db.commit()
        submission = gb.find_submission_notebook(NAME, NAME, MARKUP).id
    nbgrader(["generate_feedback", NAME, "--student", MARKUP, "--force"], root, env)
    return submission


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    home = tmp_path_factory.mktemp("instructor")
    exchange = tmp_path_factory.mktemp("exchange")
    env = exchange_home(home, exchange, COURSE)
    root = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "source", root / "source", ignore=shutil.ignore_patterns("0[124]_*"))
    with_instructors_math(root)
    generate(root, env, NAME)
    release = read(root / "release" / NAME / f"{NAME}.ipynb")
    right = solutions(read(root / "source" / NAME / f"{NAME}.ipynb"))
    mallory = fill(release, dict(right, fit_line=right["fit_line"] + "\n" + PLOT + attacks.SCRIPT_OUTPUTS
                                 + attacks.TEX_OUTPUTS))
    mallory = attacks._forge_questions(attacks._edit_markdown(mallory))
    # alice, honest, works in Spanish (the course's Spanish notebook, as published)
    spanish = read(ROOT / "release" / "es" / NAME / f"{NAME}.ipynb")
    for student, notebook in {"alice": fill(spanish, right), "mallory": mallory}.items():
        folder = root / "submitted" / student / NAME
        folder.mkdir(parents=True)
        nbformat.write(notebook, str(folder / f"{NAME}.ipynb"))
    autograder(["grade", NAME, "--jobs", "2", "--timeout", "30"], root, env)
    return root, home, file_under_markup_id(root, env)


@pytest.fixture(scope="module")
def formgrader(course):
    """The instructor's JupyterLab (``make instructor``) over the course, once for both tests
    that open formgrader's pages: its URL."""
    root, home, _ = course
    with start_view("instructor", root, home) as url:
        yield url


def title() -> str:
    """The first line of lesson 3's title cell, as the instructor wrote it."""
    source = read(ROOT / "source" / NAME / f"{NAME}.ipynb")
    cell = next(c for c in source.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "title")
    return cell.source.splitlines()[0].lstrip("# ").replace("`", "").strip()


class Watch:
    """Every request and dialog of a page (and of its frames)."""

    def __init__(self, page):
        self.requests, self.dialogs = [], []
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))

    def from_mallory(self) -> list:
        return [url for url in self.requests if HOST in url or url.rstrip("/").endswith("/x")] + self.dialogs


def test_formgrader_shows_mallorys_submission_inert(browser, formgrader):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    watch = Watch(page)
    page.goto(formgrader + lab.INSTRUCTOR_URL)
    frame = page.frame_locator("#formgrader-iframe iframe")
    frame.get_by_role("link", name="Manual Grading").click(timeout=60_000)
    frame.get_by_role("link", name=NAME, exact=True).click()
    frame.get_by_role("link", name=NAME, exact=True).click()
    frame.get_by_role("link", name="Submission #2").wait_for(timeout=30_000)  # the list is there
    frame.locator("#toggle_names").click()
    frame.get_by_role("link", name="mallory", exact=True).click()
    frame.locator("#fit_line-comment").wait_for(timeout=60_000)
    frame.get_by_text("mallory's own words").first.wait_for(timeout=30_000)
    page.wait_for_load_state("networkidle")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "formgrader-hostile.png"), full_page=True)
    plot = frame.locator("img[src^='data:image/png']")
    assert plot.count() >= 1 and plot.first.is_visible()  # her plot shows
    assert frame.get_by_text("<script>fetch(").count() >= 1  # her markup shows as text
    assert frame.get_by_role("heading", name=title()).count() == 1  # the title she rewrote is the instructor's
    assert watch.from_mallory() == [], watch.from_mallory()
    page.close()


def test_feedback_page_is_inert(browser, course):
    root, _, _ = course
    feedback = root / "feedback" / "mallory" / NAME / f"{NAME}.html"
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    watch = Watch(page)
    page.goto(feedback.as_uri())
    page.get_by_text("mallory's own words").first.wait_for(timeout=30_000)
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(ARTIFACTS / "feedback-hostile.png"), full_page=True)
    assert page.locator("img[src^='data:image/png']").count() >= 1
    assert page.get_by_text("<script>fetch(").count() >= 1
    assert watch.from_mallory() == [], watch.from_mallory()
    page.close()


def test_an_honest_feedback_page_is_in_its_notebooks_language(browser, course):
    """alice's Spanish notebook: her feedback page, nbgrader's own words included, is in Spanish."""
    root, _, _ = course
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto((root / "feedback" / "alice" / NAME / f"{NAME}.html").as_uri())
    page.locator("#toc").wait_for(timeout=30_000)
    text = page.locator("body").inner_text()
    page.screenshot(path=str(ARTIFACTS / "feedback-es.png"), full_page=True)
    assert page.locator("html").get_attribute("lang") == "es"
    assert page.locator("h1").count() >= 1  # the lesson's own prose still renders
    assert re.search(rf"{NAME} \(Puntuación: (\d+\.\d) / \1\)", text), text[:300]
    for words in ("Celda de prueba (Puntuación: ", "Respuesta del estudiante", "(Volver arriba)",
                  "Celda calificada:"):
        assert words in text, words
    assert re.search(r"Entrada\s\[\d+\]:", text)
    english = ["Score", "Test cell", "Student's answer", "(Top)", "Grade cell", "No description has been"]
    assert [word for word in english if word in text] == [] and not re.search(r"\bIn\s\[", text), text[:300]
    assert "No description has been" not in page.content()  # nor in an image's description
    page.close()


def typeset_on(page) -> dict:
    """What MathJax typeset on ``page``: how much, what of it lies outside the instructor's markdown
    (the elements of MathJax's process classes), and the links its \\href would have made."""
    return page.evaluate("""selector => {
        const typeset = [...document.querySelectorAll(selector)];
        return {count: typeset.length,
                outside: typeset.filter(e => !e.closest('.tex2jax_process, .mathjax_process'))
                                .map(e => e.outerHTML.slice(0, 160)),
                links: [...document.querySelectorAll('a[href*="tex-link"], a[href*="tex-js"]')].map(a => a.href)};
    }""", TYPESET)


def forged_labels() -> list:
    """The labels of the classmate's variants mallory's kernel displayed in her question cells."""
    return [variants.variant(q, 1).label for q in variants.FAMILIES if q.startswith("l3_")]


def assert_nothing_of_hers_is_live(page, watch) -> None:
    text = page.locator("body").inner_text()
    typeset = typeset_on(page)
    assert typeset["count"] >= 4, "MathJax did not typeset the instructor's math: the check could not fail"
    assert typeset["outside"] == [] and typeset["links"] == [], typeset
    assert r"\href{http://zz-attacker.invalid/tex-link}" in text  # her TeX shows, as the text she wrote
    assert watch.from_mallory() == [], watch.from_mallory()  # no request, no dialog: her id ran nothing
    questions = page.evaluate("""() => [...document.querySelectorAll('.cell.code_cell')]
        .filter(cell => /^\\s*quiz\\.question\\(/.test((cell.querySelector('.input_area') || {}).innerText || ''))
        .map(cell => (cell.querySelector('.output_wrapper') || {}).innerText || '')""")
    published = variants.variant("l3_q2", None).shown()["code"].splitlines()[0]
    shown = "\n".join(questions)
    assert len(questions) == 5 and published in shown  # her own questions (no course secret: the published ones)
    assert [label for label in forged_labels() if label in shown] == [] and "zz-forged" not in shown
    assert "zz-forged" in text  # (what her kernel printed in her own cells shows there, as text)


def test_pages_of_a_submission_with_tex_a_markup_id_and_forged_questions(browser, course, formgrader):
    """The submission filed under ``MARKUP``: its feedback page (as the student opens it) and its
    formgrader page (as the instructor does), MathJax served, after MathJax has typeset them."""
    root, _, submission = course
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    watch = Watch(page)
    serve_mathjax(page)
    page.goto((root / "feedback" / MARKUP / NAME / f"{NAME}.html").as_uri())
    typeset_done(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "feedback-tex.png"), full_page=True)
    assert_nothing_of_hers_is_live(page, watch)
    page.close()
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    watch = Watch(page)
    serve_mathjax(page)
    page.goto(f"{formgrader}/formgrader/submissions/{submission}/")
    page.locator("#fit_line-comment").wait_for(timeout=60_000)
    typeset_done(page)
    page.screenshot(path=str(ARTIFACTS / "formgrader-tex.png"), full_page=True)
    assert_nothing_of_hers_is_live(page, watch)
    page.locator(".name-shown").first.wait_for(state="attached")
    assert MARKUP in page.locator(".name-shown").first.text_content()  # her id, as text
    page.close()
