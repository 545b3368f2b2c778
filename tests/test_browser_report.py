"""The class report of a real graded class, opened in Debian's Chromium as an instructor opens
it (a file on disk): the plots are drawn and have text alternatives, every link leads to a
file, nothing is fetched from anywhere, and a hostile student's id and code stay text.
Screenshots go to test-artifacts/report.png and test-artifacts/course-report.png."""
from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from urllib.parse import unquote, urlparse

import catalogue
import pytest
from browser_helpers import browser  # noqa: F401  (a fixture)
from helpers import ROOT, fill, isolated_env, points, read, solutions
from test_class_grading import NAME, autograder, make_course

pytestmark = [pytest.mark.slow, pytest.mark.browser,
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]  # nbgrader's, making lesson 1 by hand

ARTIFACTS = ROOT / "test-artifacts"
HOSTILE = "<img src=x onerror=alert(1)>"  # a submission folder named so: refused, never an id
MARKUP = "mallory"  # a plain id whose loop carries markup in a comment the report quotes


def loop(name: str, comment: str = "") -> str:
    source = textwrap.dedent(next(e for e in catalogue.TRAIN_LOOP if e.name == name).source).strip()
    return source.replace("optimizer.step()", f"optimizer.step()  {comment}".rstrip(), 1)


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """Lesson 3 graded for a class: right, wrong in several ways, untouched, broken, hostile."""
    env = isolated_env(tmp_path_factory.mktemp("home"))
    release = read(ROOT / "release" / NAME / f"{NAME}.ipynb")
    right = solutions(read(ROOT / "source" / NAME / f"{NAME}.ipynb"))
    wrong_quiz = 'answer_q1 = "a"\nanswer_q2 = "b"\nanswer_q3 = "a"\nanswer_q4 = "a"'
    submissions = {
        "alice": fill(release, right),
        "bob": fill(release, dict(right, train_loop=loop("cleared_once_before_loop"))),
        "carol": release,
        "dave": fill(release, dict(right, train_loop=loop("never_cleared"), quick_check_answers=wrong_quiz)),
        "erin": fill(release, dict(right, quick_check_answers=wrong_quiz)),
        "frank": fill(release, dict(right, train_loop=loop("step_before_backward"))),
        "grace": "{ this is not a notebook",
        HOSTILE: fill(release, right),
        MARKUP: fill(release, dict(right, train_loop=loop("cleared_once_before_loop",
                                                            "# </q></td><script>alert(2)</script>"))),
    }
    root = make_course(tmp_path_factory.mktemp("course"), env, submissions)
    output = autograder(["grade", NAME, "--jobs", "2", "--timeout", "30"], root, env)
    return root, output


def open_page(browser, path: Path):
    """The page, and what it asked the network for, the dialogs it opened, its console errors."""
    seen = {"requests": [], "dialogs": [], "errors": []}
    page = browser.new_page(viewport={"width": 1100, "height": 1300})
    page.on("request", lambda request: seen["requests"].append(request.url))
    page.on("dialog", lambda dialog: (seen["dialogs"].append(dialog.message), dialog.dismiss()))
    page.on("console", lambda message: message.type == "error" and seen["errors"].append(message.text))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, seen


def check_plots(page) -> int:
    """Every plot is drawn, and says in words what it shows."""
    figures = page.locator("figure.plot")
    for i in range(figures.count()):
        svg = figures.nth(i).locator("svg")
        box = svg.bounding_box()
        assert box and box["width"] > 100 and box["height"] > 100
        assert svg.get_attribute("role") == "img"
        bars = svg.locator("rect.bar")
        assert bars.count() >= 2
        title_id, caption_id = svg.get_attribute("aria-labelledby").split()
        title = page.locator(f"[id='{title_id}']").text_content()
        caption = figures.nth(i).locator(f"figcaption[id='{caption_id}']").inner_text()
        assert title and any(ch.isdigit() for ch in caption) and (" scored " in caption or "%" in caption), caption
    return figures.count()


def check_links(page, folder: Path) -> int:
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
    for href in hrefs:
        url = urlparse(href)
        assert url.scheme == "file", href
        assert Path(unquote(url.path)).is_file(), href
    return len(hrefs)


def test_the_report_in_chromium(browser, graded_class):  # noqa: F811
    root, output = graded_class
    page_path = root / "reports" / f"{NAME}.html"
    assert output.strip().splitlines()[-1] == f"class report: {page_path}"  # the last line
    page, seen = open_page(browser, page_path)
    assert check_plots(page) == 1 + len(points(NAME))  # the total and each graded cell
    assert check_links(page, root) >= 20
    text = page.inner_text("body")
    # the mistakes in words, who made them
    assert "cleared the gradients only once, before the loop" in text and "never cleared the gradients" in text
    assert "wrong Quick Check answer" in text and "step() before backward()" in text
    assert "Gradients were cleared only once, before the loop." in text  # as a student reads it
    loop_block = page.locator("section.exercise-block").filter(has=page.locator("code", has_text="train_loop_tests"))
    row = loop_block.locator("tr").filter(has_text="cleared the gradients only once")
    assert row.locator("td.num").inner_text() == "2"
    assert sorted(row.locator("a").all_inner_texts()) == sorted(["bob", MARKUP])
    assert "not graded: a submission folder's name becomes the student's id" in output  # the markup-named one
    # grace could not be graded, and why
    assert "the file is not a notebook (not JSON)" in page.locator("table").filter(has_text="grace").first.inner_text()
    # the hostile student is text, nothing ran, nothing was fetched
    assert page.evaluate("document.querySelectorAll('script, img, iframe, object').length") == 0
    assert seen["dialogs"] == [] and seen["errors"] == []
    assert seen["requests"] == [page_path.as_uri()]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report.png"), clip={"x": 0, "y": 0, "width": 1100, "height": 1300})
    # the feedback a link leads to is the student's own
    page.get_by_role("link", name="bob", exact=True).first.click()
    page.wait_for_load_state("load")
    assert page.url.endswith(f"/feedback/bob/{NAME}/{NAME}.html") and "cleared only once" in page.inner_text("body")
    page.close()


def test_the_course_report_in_chromium(browser, graded_class):  # noqa: F811
    root, _ = graded_class
    page_path = root / "reports" / "course.html"
    page, seen = open_page(browser, page_path)
    assert check_plots(page) == 0  # one lesson graded: no comparison to draw yet
    assert check_links(page, root) >= 2
    text = page.inner_text("body")
    assert "The hardest lesson so far" not in text  # with one lesson there is no hardest
    assert "Hardest exercise (mean score)\n" in text or "train_loop_tests" in text
    behind = page.locator("tr").filter(has_text="grace")
    assert "03_zeroing_grad could not be graded" in behind.inner_text()
    assert page.evaluate("document.querySelectorAll('script, img').length") == 0
    assert seen["dialogs"] == [] and seen["errors"] == [] and seen["requests"] == [page_path.as_uri()]
    page.close()


def test_a_second_lesson_adds_the_comparison(browser, graded_class, tmp_path):  # noqa: F811
    """With two lessons in the gradebook the course page draws them side by side (lesson 1
    recorded here through nbgrader's API for three students, without grading)."""
    from nbgrader.api import Gradebook

    root, _ = graded_class
    course = tmp_path / "course"
    shutil.copytree(root, course, ignore=shutil.ignore_patterns("reports"))
    lesson = "01_requires_grad"
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "autograd-lessons") as gb:
        gb.add_assignment(lesson)
        gb.add_notebook(lesson, lesson)
        gb.add_grade_cell("freeze_body_tests", lesson, lesson, max_score=2, cell_type="code")
        for student, score in {"alice": 2, "bob": 2, "carol": 1}.items():
            submission = gb.add_submission(lesson, student)
            submission.notebooks[0].grades[0].auto_score = score
        gb.db.commit()
    autograder(["report"], course, isolated_env(tmp_path / "home"))
    page, seen = open_page(browser, course / "reports" / "course.html")
    assert check_plots(page) == 1
    assert "The hardest lesson so far is 03_zeroing_grad" in page.inner_text("body")
    caption = page.locator("figcaption").inner_text()
    assert caption.startswith("Mean score per lesson, as a share of its points: 01_requires_grad 83%; 03_zeroing_grad ")
    assert "01_requires_grad not submitted" in page.locator("tr").filter(has_text="dave").inner_text()
    assert seen["requests"] == [(course / "reports" / "course.html").as_uri()]
    page.screenshot(path=str(ARTIFACTS / "course-report.png"), full_page=True)
    page.close()
