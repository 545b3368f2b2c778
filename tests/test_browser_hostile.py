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
"""
from __future__ import annotations

import re
import shutil
import textwrap

import attacks
import nbformat
import pytest
from browser_helpers import browser  # noqa: F401  (a fixture)
from helpers import ROOT, exchange_home, fill, generate, read, solutions
from pages import HOST
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


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    home = tmp_path_factory.mktemp("instructor")
    exchange = tmp_path_factory.mktemp("exchange")
    env = exchange_home(home, exchange, COURSE)
    root = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "source", root / "source", ignore=shutil.ignore_patterns("0[124]_*"))
    generate(root, env, NAME)
    release = read(root / "release" / NAME / f"{NAME}.ipynb")
    right = solutions(read(root / "source" / NAME / f"{NAME}.ipynb"))
    mallory = fill(release, dict(right, fit_line=right["fit_line"] + "\n" + PLOT + attacks.SCRIPT_OUTPUTS))
    mallory = attacks._edit_markdown(mallory)
    # alice, honest, works in Spanish (the course's Spanish notebook, as published)
    spanish = read(ROOT / "release" / "es" / NAME / f"{NAME}.ipynb")
    for student, notebook in {"alice": fill(spanish, right), "mallory": mallory}.items():
        folder = root / "submitted" / student / NAME
        folder.mkdir(parents=True)
        nbformat.write(notebook, str(folder / f"{NAME}.ipynb"))
    autograder(["grade", NAME, "--jobs", "2", "--timeout", "30"], root, env)
    return root, home


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


def test_formgrader_shows_mallorys_submission_inert(browser, course):
    root, home = course
    with start_view("instructor", root, home) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        watch = Watch(page)
        page.goto(url + lab.INSTRUCTOR_URL)
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
    root, _ = course
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
    root, _ = course
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
