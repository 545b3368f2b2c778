"""A student walks lesson 3 in JupyterLab, in Chromium, in English and in Chinese, alone (no
grading run: what Binder gives), and the test reads what the page shows them.

On a fresh copy of the release notebook: Run All goes to the end (the checks and answer stubs
that fail before the student answers let it go on), every widget shows, every check cell shows
its message alone; then exercise (b) answered with a catalogued wrong loop and checked, three
hints, the right loop and its check; Question 1 answered wrong, then right; ``lessons.progress()``.
Each message must be the one the grader gives for that code in the notebook's language: the test
process runs the same cells with the same grader in that language (``Here``) and compares word
for word. Besides, no message may show a traceback, a file of the grader's or an id the notebook
never shows (``l3_q1``, ``train_loop_tests``, ``03_zeroing_grad``); the Chinese notebook's must
be Chinese, not the English message; and the hints must carry that language's tiers, under the
title the heading gives the exercise. Pictures of what the student read go to test-artifacts/.

One JupyterLab serves both notebooks (each kernel finds its notebook's language itself) and one
test walks both, step by step, so that one kernel works while the test reads the other page:
Run All and ``progress()`` (each about 10 s of a kernel's time) run in both at once.
"""
from __future__ import annotations

import contextlib
import io
import itertools
import json
import linecache
import re
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
from browser_helpers import (add_cell_at_end, browser, cell, jupyter_lab, open_notebook,  # noqa: F401  (browser: a fixture)
                             output_text, run_cell, save, start_cell, unexpected_errors, wait_for_cell, write_cell)
from catalogue import TRAIN_LOOP
from helpers import ROOT, isolated_env, read, solutions
from playwright.sync_api import TimeoutError as Timeout
from playwright.sync_api import expect
from test_browser import ARTIFACTS, CJK, LESSONS, SETTINGS, UI

from autograder import messages, titles
from autograder.judges.local import LocalJudge
from autograder.kernel import connection
from autograder.kernel.checks import CheckFailed
from autograder.exercises import BY_NAME
from lessons import lab as course_lab
from lessons.lab_language import locale, save_locale
from lessons.text import raw as lesson_words

pytestmark = [pytest.mark.slow, pytest.mark.browser]

NAME = "03_zeroing_grad"
FOLDERS = {"en": "", "zh": "zh/"}  # each language's folder under release/
LOOPS = {entry.name: entry for entry in TRAIN_LOOP}
WRONG_LOOP, RIGHT_LOOP = LOOPS["never_cleared"], LOOPS["canonical"]
HINTS = "exercises.train_loop.hint()\nexercises.train_loop.hint(2)\nexercises.train_loop.hint(3)"
PROGRESS = "import lessons\nlessons.progress()"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """One JupyterLab, the students' (``lab_config/student``), over a scratch folder with a copy
    of the English and of the Chinese lesson, ``<lang>/03_zeroing_grad/03_zeroing_grad.ipynb``,
    so that ``lessons.progress()``, run beside each, finds that language's notebook only."""
    scratch = tmp_path_factory.mktemp("walk")
    for lang, folder in FOLDERS.items():
        (scratch / lang / NAME).mkdir(parents=True)
        shutil.copy(ROOT / "release" / f"{folder}{NAME}" / f"{NAME}.ipynb", scratch / lang / NAME)
    env = isolated_env(tmp_path_factory.mktemp("home"))
    env.pop("AUTOGRAD_LESSONS_LANG", None)  # each kernel finds its notebook's language itself
    env["JUPYTER_CONFIG_PATH"] = course_lab.config_path("student", env.get("JUPYTER_CONFIG_PATH"))
    settings = Path(env["JUPYTER_CONFIG_DIR"]) / "lab" / "user-settings"
    for plugin, values in SETTINGS.items():
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    with jupyter_lab([sys.executable, "-m", "jupyter", "lab", f"--ServerApp.root_dir={scratch}"],
                     env, scratch, scratch / "server.log") as url:
        yield url, settings


class Here:
    """The student's cells run in this process by the same grader, with the judge of a student
    working alone (``judges.local``, its own for this walk), in the notebook's language: what
    the page must show for them. (Run from a folder without ``variants.json``: self-study.)"""

    _names = itertools.count()

    def __init__(self, lang: str, setup: str):
        self.lang, self.judge, self.namespace = lang, LocalJudge(), {}
        self.run(setup)

    def run(self, code: str) -> str:
        """What a cell of ``code`` shows: what it prints, and a failed check's message (as
        ``CheckFailed`` renders itself). A message quotes the student's lines from the cell, as
        IPython keeps them (``linecache``)."""
        filename = f"<walk cell {next(self._names)}>"
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        shown = io.StringIO()
        with pytest.MonkeyPatch.context() as here, contextlib.redirect_stdout(shown):
            here.setenv("AUTOGRAD_LESSONS_LANG", self.lang)  # read at every message
            here.setattr(connection, "_judge", self.judge)
            try:
                exec(compile(code, filename, "exec"), self.namespace)
            except CheckFailed as failed:
                print("\n".join(failed._render_traceback_()))
            except NotImplementedError:
                pass  # an answer not written yet: Python's own error, which the test does not compare
        return shown.getvalue()


def words(text: str) -> str:
    """Text as compared: each run of whitespace one space (the page wraps and pads lines)."""
    return " ".join(text.split())


def bare(text: str) -> str:
    """Text without its whitespace: where lines break does not matter, in Chinese either."""
    return "".join(text.split())


def internal_ids(nb) -> re.Pattern:
    """What the grader calls the notebook's parts, which the student never reads there: the
    assignment, its graded test cells (``train_loop_tests``, ``quiz_q1``), its questions
    (``l3_q1``) and its exercises (``train_loop``, but for ``exercises.train_loop``)."""
    ids = {NAME, "accumulation_predictions", "train_loop"}
    ids |= {c.metadata["nbgrader"]["grade_id"] for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")}
    return re.compile(r"(?<![\w.])(?:" + "|".join(sorted(map(re.escape, ids))) + r"|l\d+_[a-z]\w*)\b")


def index_of(nb, grade_id: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def source(entry) -> str:
    """A catalogue entry's code, as the student writes it in the cell."""
    return textwrap.dedent(entry.source).strip("\n")


def widget_cells(nb) -> dict:
    """The code cells that show a widget or a question: index → what must show in them."""
    shows = {"widgets.": ".widget-image", "quiz.quick_check(": ".quiz-question", "quiz.question(": ".jp-RenderedHTMLCommon"}
    return {i: css for i, c in enumerate(nb.cells) if c.cell_type == "code"
            for start, css in shows.items() if c.source.startswith(start)}


# for each cell, whether it has run (an execution count); null for a markdown cell
COUNTS = """() => [...document.querySelectorAll('.jp-NotebookPanel .jp-Cell')].map(c =>
    c.classList.contains('jp-CodeCell') ? /\\[\\d+\\]/.test(c.querySelector('.jp-InputPrompt').textContent) : null)"""

class Walk:
    """One student, one notebook: the page they read, the notebook as released, and its cells
    run here in its language."""

    def __init__(self, browser, lab, lang: str):
        self.lang = lang
        self.nb = read(ROOT / "release" / f"{FOLDERS[lang]}{NAME}" / f"{NAME}.ipynb")
        assert messages.notebook_language(self.nb) == lang
        self.ids = internal_ids(self.nb)
        self.here = Here(lang, self.nb.cells[index_of(self.nb, "setup")].source)
        url, settings = lab
        # JupyterLab's interface in the lesson's language, saved as Settings › Language (or a
        # Binder link) saves it; read by the page while it loads (done once its kernel is idle)
        save_locale(settings, locale(lang) or "default")
        self.page, _ = open_notebook(browser, url, f"{lang}/{NAME}/{NAME}.ipynb", lang)

    def title(self, title: dict) -> str:
        return titles.text(title, self.lang)

    def feedback(self, text: str) -> str:
        """``text``, a message as the student must read it: no traceback, no grader's file, no
        internal id, and Chinese in the Chinese notebook."""
        assert text.strip(), "the cell shows nothing"
        assert "Traceback" not in text and ".py" not in text and "site-packages" not in text, text
        assert not self.ids.search(text), (self.ids.search(text).group(), text)
        if self.lang == "zh":
            assert CJK.search(text), text
        return text

    def picture(self, index: int, what: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        cell(self.page, index).screenshot(path=str(ARTIFACTS / f"walk-{NAME}-{self.lang}-{what}.png"))

    # 1. Run All
    def run_all(self) -> None:
        """Run › Run All Cells, as a student does."""
        self.page.get_by_role("menuitem", name=UI[self.lang]["Run"], exact=True).click()
        self.page.get_by_role("menuitem", name=UI[self.lang]["Run All Cells"], exact=True).click()

    def not_run(self) -> list:
        """Once the last code cell has run, the code cells that did not (their indices). (While
        Run All goes on, JupyterLab shows the cells still queued as "[*]" or "[ ]", so only the
        last cell's count says it reached the end; a cell that stops Run All leaves the last
        one without a count, and the wait ends on its bound.)"""
        with contextlib.suppress(Timeout):  # the cells that did not run say where it stopped
            self.page.wait_for_function(f"() => ({COUNTS})().filter(ran => ran !== null).at(-1)", timeout=180_000)
        dialog = self.page.locator(".jp-Dialog")
        assert dialog.count() == 0, f"a dialog stopped Run All: {dialog.inner_text()}"
        return [i for i, ran in enumerate(self.page.evaluate(COUNTS)) if ran is False]

    def ran_to_the_end(self) -> None:
        page, nb = self.page, self.nb
        assert self.not_run() == [], "Run All did not run these cells"
        # every widget: a view is drawn once its model has come from the kernel, so wait for it
        spec = LESSONS[NAME]
        expect(page.locator(".jp-NotebookPanel .widget-image")).to_have_count(spec["images"], timeout=30_000)
        expect(page.locator(".jp-NotebookPanel .widget-slider")).to_have_count(spec["sliders"])
        for index, shows in widget_cells(nb).items():
            expect(cell(page, index).locator(f".jp-OutputArea {shows}").first, nb.cells[index].source).to_be_visible()
        # errors only where the notebook expects them (tagged ``raises-exception``)
        assert unexpected_errors(page, nb) == []
        # every check cell, before the student answered anything: its message alone
        checks = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.startswith("check_")]
        for index in checks:
            self.feedback(output_text(page, index))
        answer, first = index_of(nb, "accumulation_predictions"), checks[0]
        assert first == answer + 1
        self.here.run(nb.cells[answer].source)
        assert words(output_text(page, first)) == words(self.here.run(nb.cells[first].source))
        self.picture(first, "first-check")

    # 2.–4. exercise (b): a wrong loop, three hints, the right loop
    def exercise_b(self) -> None:
        page, nb = self.page, self.nb
        answer, test = index_of(nb, "train_loop"), index_of(nb, "train_loop_tests")
        write_cell(page, answer, source(WRONG_LOOP))
        assert run_cell(page, answer).strip() == ""
        self.here.run(source(WRONG_LOOP))
        shown = self.feedback(run_cell(page, test))
        assert words(shown) == words(self.here.run(nb.cells[test].source))
        if self.lang == "en":  # the words the catalogue says this mistake's message has
            assert [w for w in WRONG_LOOP.words if w not in shown] == [], shown
        else:
            english = Here("en", nb.cells[index_of(nb, "setup")].source)
            english.run(source(WRONG_LOOP))
            assert words(english.run(nb.cells[test].source)) not in words(shown)
        self.picture(test, "exercise-b-wrong")

        hints = add_cell_at_end(page, HINTS)
        shown = words(self.feedback(run_cell(page, hints)))
        assert shown == words(self.here.run(HINTS))
        title = self.title(titles.exercise(BY_NAME["train_loop"]))  # "Exercise (b)", "练习 (b)"
        tiers = lesson_words("hints.train_loop", self.lang)
        # (compared without whitespace: a Chinese line is broken between two characters)
        assert [level for level in ("1", "2", "3") if bare(tiers[level]) not in bare(shown)] == [], shown
        assert shown.count(title) == 3, title
        diagnosis = words(self.here.run(nb.cells[test].source))  # of the loop in the answer cell now
        assert bare(shown).count(bare(diagnosis)) == 1  # the first hint opens with it; the next two, on the same code, do not
        self.picture(hints, "hints")

        write_cell(page, answer, source(RIGHT_LOOP))
        run_cell(page, answer)
        self.here.run(source(RIGHT_LOOP))
        shown = self.feedback(run_cell(page, test))
        assert words(shown) == words(self.here.run(nb.cells[test].source))
        assert title in shown and bare(diagnosis) not in bare(shown)

    # 5. Question 1: wrong, then right
    def question_1(self) -> None:
        page, nb = self.page, self.nb
        answers, check = index_of(nb, "quick_check_answers"), index_of(nb, "quiz_q1")
        solved = solutions(read(ROOT / "source" / NAME / f"{NAME}.ipynb"))["quick_check_answers"]
        right = re.search(r'answer_q1 = "(\w)"', solved).group(1)
        wrong = next(letter for letter in "abcd" if letter != right)
        question = self.title(titles.question("l3_q1"))  # "Question 1", "第 1 题"
        said = {}
        for letter in (wrong, right):
            code = f'answer_q1 = "{letter}"\nanswer_q2 = None\nanswer_q3 = None\nanswer_q4 = None'
            write_cell(page, answers, code)
            run_cell(page, answers)
            self.here.run(code)
            said[letter] = words(self.feedback(run_cell(page, check)))
            assert said[letter] == words(self.here.run(nb.cells[check].source))
            assert said[letter].startswith(question), said[letter]
        assert said[wrong] != said[right]

    # 6. progress()
    def start_progress(self) -> tuple:
        save(self.page)  # progress() reads the notebooks on disk
        index = add_cell_at_end(self.page, PROGRESS)
        return index, start_cell(self.page, index)

    def progress(self, index: int, before: str) -> None:
        """The table names the lesson and each check as the notebook's headings do; the two
        fixed, Exercise (b) and Question 1, pass; the lessons not beside it are named too."""
        page, nb = self.page, self.nb
        shown = self.feedback(wait_for_cell(page, index, before, timeout=180_000))
        rows = [row.locator("td").all_inner_texts() for row in cell(page, index).locator(".lesson-progress tr").all()[1:]]
        lesson = self.title(titles.lesson(NAME))
        checks = [self.title(titles.test_cell(c.metadata["nbgrader"]["grade_id"])) for c in nb.cells
                  if c.metadata.get("nbgrader", {}).get("grade")]
        assert [(row[1], row[2]) for row in rows] == [(lesson, name) for name in checks], rows
        passing = {row[2] for row in rows if row[0] == "✓"}
        assert passing == {self.title(titles.exercise(BY_NAME["train_loop"])), self.title(titles.question("l3_q1"))}, rows
        for other in ("01_requires_grad", "02_backward", "04_no_grad"):
            assert self.title(titles.lesson(other)) in shown
        self.picture(index, "progress")


def test_a_student_walks_lesson_3_in_english_and_in_chinese(lab, browser, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # for the grader run here: no variants.json, self-study
    walks = []
    for lang in FOLDERS:  # the English kernel runs all while the Chinese notebook opens
        walks.append(Walk(browser, lab, lang))
        walks[-1].run_all()
    for walk in walks:
        walk.ran_to_the_end()
    for walk in walks:
        walk.exercise_b()
        walk.question_1()
    started = [walk.start_progress() for walk in walks]
    for walk, (index, before) in zip(walks, started):
        walk.progress(index, before)
        walk.page.close()
