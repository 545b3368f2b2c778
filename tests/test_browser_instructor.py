"""The two views of the course in real JupyterLab and Chromium, started exactly as
``make lab`` and ``make instructor`` start them (lessons.lab.command).

Students: no Create Assignment panel, no formgrader or course list (neither in the menu nor
in the command palette nor on the server), no question about Jupyter news on first start,
but nbgrader's Validate button on a notebook and the Assignment List with the assignment
the instructor released. The same checks find all of these in plain ``jupyter lab`` (the
former ``make lab``), so they can fail.

Instructor: formgrader opens on the course, shows the submissions with the scores
``autograder grade`` wrote; the instructor opens one, writes a comment and gives a manual
score, and ``nbgrader export`` (autograder.instructor.passes.export) carries both.
"""
from __future__ import annotations

import csv
import shutil
import sys
import textwrap
import urllib.error
import urllib.request
from pathlib import Path

import catalogue
import nbformat
import pytest
from browser_helpers import browser, jupyter_lab, open_notebook, validate  # noqa: F401  (browser: a fixture)
from helpers import ROOT, exchange_home, fill, generate, isolated_env, nbgrader, points, read, solutions
from nbgrader.api import Gradebook
from test_class_grading import autograder

from lessons import lab

pytestmark = [pytest.mark.slow, pytest.mark.browser]

NAME = "03_zeroing_grad"
COURSE = "autograd-lessons"  # nbgrader_config.py's course id
COMMENT = "Clear .grad inside the loop, before backward(): see step 2."
NEWS = "official Jupyter news"
ARTIFACTS = ROOT / "test-artifacts"


def start_view(role: str, course: Path, home: Path):
    """JupyterLab as ``make lab`` (student) or ``make instructor`` starts it."""
    argv, changes, cwd = lab.command(role, course)
    env = isolated_env(home)
    env.update(changes)
    return jupyter_lab(argv, env, cwd, home / f"{role}.log")


@pytest.fixture(scope="module")
def exchange(tmp_path_factory):
    path = tmp_path_factory.mktemp("exchange")
    path.chmod(0o777)
    return path


@pytest.fixture(scope="module")
def graded_course(tmp_path_factory, exchange):
    """The instructor's course: lesson 3 generated, released to the exchange, three
    submissions (right, wrong loop, untouched) graded with ``autograder grade``."""
    home = tmp_path_factory.mktemp("instructor")
    env = exchange_home(home, exchange, COURSE)
    root = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "source", root / "source", ignore=shutil.ignore_patterns("0[124]_*"))
    generate(root, env, NAME)
    nbgrader(["release_assignment", NAME, "--force"], root, env)
    release = read(root / "release" / NAME / f"{NAME}.ipynb")
    right = solutions(read(root / "source" / NAME / f"{NAME}.ipynb"))
    wrong_loop = textwrap.dedent(next(e for e in catalogue.TRAIN_LOOP
                                      if e.name == "cleared_once_before_loop").source).strip()
    for student, notebook in {"alice": fill(release, right),
                              "bob": fill(release, dict(right, train_loop=wrong_loop)),
                              "carol": release}.items():
        folder = root / "submitted" / student / NAME
        folder.mkdir(parents=True)
        nbformat.write(notebook, str(folder / f"{NAME}.ipynb"))
    autograder(["grade", NAME, "--jobs", "2", "--timeout", "30"], root, env)
    return root, home, env


def scores(root: Path) -> dict:
    """student → (total score, max score), from the gradebook."""
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        return {s.student.id: (s.score, s.max_score) for s in gb.find_assignment(NAME).submissions}


@pytest.fixture(scope="module")
def student_course(tmp_path_factory):
    """What a student has after cloning: the configuration and the released notebooks."""
    root = tmp_path_factory.mktemp("student-course")
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "release", root / "release")
    return root


def asks_about_news(page, requested: list) -> bool:
    """Whether JupyterLab asks its question about Jupyter news. Its announcements plugin, when
    it runs, asks the server for its settings section as JupyterLab starts, before a notebook
    opens, and shows the question once the application is restored: no request, no question;
    a request, and the question must come."""
    if not any("announcements" in url for url in requested):
        return page.get_by_text(NEWS).count() > 0
    page.get_by_text(NEWS).wait_for(timeout=60_000)
    return True


def nbgrader_menu(page) -> list:
    """The visible items of JupyterLab's Nbgrader menu."""
    page.get_by_role("menuitem", name="Nbgrader", exact=True).click()
    items = page.locator("#jp-mainmenu-nbgrader .lm-Menu-item").filter(visible=True)
    items.first.wait_for(timeout=10_000)
    labels = [text.strip() for text in items.all_inner_texts()]
    page.keyboard.press("Escape")
    return labels


def palette(page, words: str) -> list:
    """Visible command palette entries that match ``words``.

    The palette closes when focus leaves it. Opened before the kernel was connected, it was
    closed by JupyterLab giving the notebook its focus back (under load, in 4 of 5 starts,
    30 to 700 ms after it opened), and the student's view then read no entries from a closed
    palette: a pass that proved nothing. So the page itself waits for the palette to open,
    types ``words`` and reads the entries, and the result counts only if the palette was
    still open, with ``words`` in it, when read; otherwise the palette is opened again."""
    for _ in range(3):
        page.keyboard.press("Control+Shift+c")
        found = page.evaluate(SEARCH_PALETTE, words)
        if found is not None:
            page.keyboard.press("Escape")
            return found
    raise AssertionError(f"the command palette closed three times before it showed {words!r}")


# In the page: wait up to 60 frames for the palette to open; type ``words``; wait the two
# frames it filters on; give its visible entries, or null if it never opened or closed (and
# so emptied its input) meanwhile.
SEARCH_PALETTE = """async words => {
    const frame = () => new Promise(done => requestAnimationFrame(done));
    const open = () => document.querySelector('.lm-CommandPalette-input')?.checkVisibility();
    for (let n = 0; n < 60 && !open(); n++) await frame();
    if (!open()) return null;
    const input = document.querySelector('.lm-CommandPalette-input');
    input.value = words;
    input.dispatchEvent(new Event('input', {bubbles: true}));
    await frame(); await frame();
    if (!input.checkVisibility() || input.value !== words) return null;
    return [...document.querySelectorAll('.lm-CommandPalette-item')]
        .filter(item => item.checkVisibility()).map(item => item.innerText);
}"""


def instructor_tools(page, requested: list, url: str) -> dict:
    """Whatever of the instructor's tools (and the news question) this page offers."""
    found = {}
    if page.locator(".jp-SideBar.jp-mod-right").get_by_text("Create Assignment").count():
        found["Create Assignment panel"] = True
    if asks_about_news(page, requested):
        found["news question"] = True
    menu = [item for item in nbgrader_menu(page) if item != "Assignment List"]
    if menu:
        found["menu"] = menu
    commands = palette(page, "formgrader") + palette(page, "course list")
    if commands:
        found["palette"] = commands
    for path in ("formgrader", "formgraders"):
        try:
            urllib.request.urlopen(f"{url}/{path}", timeout=30)
            found[f"/{path}"] = True
        except urllib.error.HTTPError as e:
            if e.code != 404:
                found[f"/{path}"] = e.code
    return found


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def test_students_get_validate_and_assignments_only(browser, student_course, graded_course,
                                                    exchange, tmp_path):
    home = tmp_path / "student"
    exchange_home(home, exchange, COURSE, student="dave")  # their own Jupyter home and nbgrader config
    with start_view("student", student_course, home) as url:
        page, requested = open_notebook(browser, url, f"{NAME}/{NAME}.ipynb")  # first start: fresh home
        assert instructor_tools(page, requested, url) == {}
        screenshot(page, "student-view")
        report = validate(page)
        assert "failed" in report and "is not written yet" in report, report[:2000]

        page.get_by_role("menuitem", name="Nbgrader", exact=True).click()
        page.locator("#jp-mainmenu-nbgrader").get_by_text("Assignment List").click()
        released = page.locator("#released_assignments_list")
        released.get_by_text(NAME).wait_for(timeout=60_000)  # what the instructor released
        assert page.locator("#released_assignments_list_error").is_hidden()
        page.close()
    assert "Loading the formgrader" not in (home / "student.log").read_text()


def test_plain_jupyter_lab_shows_what_students_must_not_see(browser, student_course, tmp_path):
    """The former ``make lab`` (no configuration): the same checks find every tool."""
    env = isolated_env(tmp_path / "plain")
    argv = [sys.executable, "-m", "jupyter", "lab", f"--ServerApp.root_dir={student_course / 'release'}"]
    with jupyter_lab(argv, env, student_course, tmp_path / "plain.log") as url:
        page, requested = open_notebook(browser, url, f"{NAME}/{NAME}.ipynb")
        found = instructor_tools(page, requested, url)
        page.close()
    assert set(found) == {"Create Assignment panel", "news question", "menu", "palette",
                          "/formgrader", "/formgraders"}, found
    assert {"Formgrader", "Course List", "Create assignment"} <= set(found["menu"])


def test_instructor_grades_in_formgrader_and_the_export_has_it(browser, graded_course, tmp_path):
    root, _, env = graded_course
    graded = scores(root)
    full = sum(points(NAME).values())
    assert graded["alice"] == (full, full) and graded["bob"][0] < full and graded["carol"][0] == 0
    with start_view("instructor", root, tmp_path) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(url + lab.INSTRUCTOR_URL)  # where `make instructor` opens the browser
        frame = page.frame_locator("#formgrader-iframe iframe")
        frame.get_by_role("heading", name="Manage Assignments").wait_for(timeout=60_000)
        assert page.locator(".jp-SideBar.jp-mod-right").get_by_text("Create Assignment").count() == 1
        assert {"Formgrader", "Create assignment", "Assignment List"} <= set(nbgrader_menu(page))
        row = frame.locator("tr", has=frame.get_by_role("link", name=NAME, exact=True))
        row.wait_for(timeout=30_000)
        assert row.locator("td").nth(8).inner_text().strip() == "3"  # submissions

        # Manual Grading → lesson 3 → its notebook: every student with the score autograder gave
        frame.get_by_role("link", name="Manual Grading").click()
        frame.get_by_role("link", name=NAME, exact=True).click()
        frame.get_by_role("link", name=NAME, exact=True).click()
        frame.get_by_role("link", name=f"Submission #{len(graded)}").wait_for(timeout=30_000)
        frame.locator("#toggle_names").click()  # names, not "Submission #n"
        for student, (score, max_score) in graded.items():
            line = frame.locator("tr", has=frame.get_by_role("link", name=student, exact=True))
            assert line.locator(".score").inner_text() == f"{score:g} / {max_score:g}", student

        # bob's submission: a comment on his loop, and 1 point of the 4 for its tests
        frame.get_by_role("link", name="bob", exact=True).click()
        comment = frame.locator("#train_loop-comment")
        comment.wait_for(timeout=60_000)
        # formgrader binds its inputs once it has fetched the submission's grades and comments:
        # what is typed before is never saved (a machine under load once lost the comment so)
        comment.element_handle().owner_frame().wait_for_function(
            "() => window.formgrader && formgrader.grades.loaded && formgrader.comments.loaded",
            timeout=60_000)
        comment.fill(COMMENT)
        comment.press("Tab")
        frame.locator(".nbgrader_cell", has=comment).locator(".comment-saved").wait_for(
            state="visible", timeout=30_000)
        comment.scroll_into_view_if_needed()
        screenshot(page, "formgrader")
        score_box = frame.locator("#train_loop_tests")
        score_box.fill("1")
        score_box.press("Tab")
        frame.locator(".nbgrader_cell", has=score_box).locator(".score-saved").wait_for(
            state="visible", timeout=30_000)
        page.close()

    after = scores(root)
    assert after["bob"][0] == graded["bob"][0] + 1 and after["alice"] == graded["alice"]
    nbgrader(["export"], root, env)
    with open(root / "grades_by_cell.csv", newline="") as f:
        cells = {(r["student_id"], r["cell"]): r for r in csv.DictReader(f)}
    assert cells[("bob", "train_loop")]["comment"] == COMMENT
    assert float(cells[("bob", "train_loop_tests")]["manual_score"]) == 1
    assert float(cells[("bob", "train_loop_tests")]["score"]) == 1
    assert float(cells[("bob", "train_loop_tests")]["auto_score"]) == 0
    assert not any(r["comment"] == COMMENT for key, r in cells.items() if key[0] != "bob")
    with open(root / "grades.csv", newline="") as f:
        totals = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert totals == {student: score for student, (score, _) in after.items()}
