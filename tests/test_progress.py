"""lessons.progress(): read the notebooks on disk, run only their graded cells, cache by content,
answer in each notebook's own language."""
from __future__ import annotations

import shutil

import catalogue
import nbformat
import pytest
from helpers import ROOT, fill, points, read, solutions

import lessons
from autograder.messages import _GRADER
from lessons import progress_report



@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shutil.copytree(ROOT / "release", tmp_path / "release")
    return tmp_path / "release"


def _solve(workdir, name, **overrides):
    nb = fill(read(ROOT / "release" / name / f"{name}.ipynb"),
              dict(solutions(read(ROOT / "source" / name / f"{name}.ipynb")), **overrides))
    nbformat.write(nb, str(workdir / name / f"{name}.ipynb"))


@pytest.mark.slow
def test_progress_reports_every_check_and_caches(workdir):
    wrong_loop = next(e for e in catalogue.TRAIN_LOOP if e.name == "never_cleared")
    import textwrap
    _solve(workdir, "03_zeroing_grad", train_loop=textwrap.dedent(wrong_loop.source).strip())
    _solve(workdir, "01_requires_grad")

    report = lessons.progress(workdir / "03_zeroing_grad")  # as called from inside a lesson folder
    assert report.ran == ["01_requires_grad", "02_backward", "03_zeroing_grad", "04_no_grad"]
    status = {(name, test): (ok, msg) for name, test, _, ok, msg in report.rows}
    assert all(status[("01_requires_grad", t)][0] for t in ("quiz_q1", "graph_predictions_tests",
                                                            "freeze_body_tests"))
    assert status[("03_zeroing_grad", "fit_line_tests")][0]
    ok, message = status[("03_zeroing_grad", "train_loop_tests")]
    assert not ok and "never cleared" in message
    assert not status[("02_backward", "derivative_tests")][0]
    total = {name: sum(points(name).values()) for name in report.ran}
    lesson_3 = total["03_zeroing_grad"] - points("03_zeroing_grad")["train_loop_tests"]
    assert report.score == (total["01_requires_grad"] + lesson_3, sum(total.values()))
    assert "never cleared" in report._repr_html_() and "✓" in str(report)
    # named as the notebooks' headings name them, never by the grader's ids
    shown = str(report) + report._repr_html_()
    assert "✗ Lesson 3 · Exercise (b) (4)" in str(report) and "✓ Lesson 1 · Question 1 (1)" in str(report)
    assert not any(name in shown for name in ("_tests", "quiz_q", "03_zeroing_grad", "01_requires_grad"))

    again = lessons.progress(workdir)
    assert again.ran == [] and again.rows == report.rows  # nothing changed: nothing re-run

    _solve(workdir, "04_no_grad")
    third = lessons.progress(workdir)
    assert third.ran == ["04_no_grad"]
    assert third.score == (total["01_requires_grad"] + lesson_3 + total["04_no_grad"], sum(total.values()))


@pytest.mark.slow
def test_progress_says_which_notebooks_are_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shutil.copytree(ROOT / "release" / "02_backward", tmp_path / "02_backward")
    report = lessons.progress(tmp_path)
    assert report.missing == ["01_requires_grad", "03_zeroing_grad", "04_no_grad"]
    assert {name for name, *_ in report.rows} == {"02_backward"}


def _quick_check_opening(lang: str) -> str:
    """How an unanswered Quick Check's message begins in ``lang``: its title ("Question ",
    "Pregunta ", …), as the question's heading names it."""
    assert _GRADER.raw("quiz.unanswered", lang).startswith("{title}")
    opening = _GRADER.raw("titles.question", lang).split("{")[0]
    assert opening.strip()
    return opening


def test_the_cache_key_holds_the_notebooks_language():
    """Two languages' notebooks of a lesson may have the same code cells, byte for byte (only
    the answer stubs' comment differs, and a student may replace both): the language alone
    tells their results apart."""
    english = progress_report.graded_cells(ROOT / "release" / "02_backward" / "02_backward.ipynb")
    spanish = progress_report.graded_cells(ROOT / "release" / "es" / "02_backward" / "02_backward.ipynb")
    assert (english["language"], spanish["language"]) == ("en", "es")
    same_code = {**english, "answers": spanish["answers"]}  # the same cells, the English notebook's language
    assert {**same_code, "language": None} == {**spanish, "language": None}
    grader = progress_report.grader_fingerprint()
    assert progress_report._key(same_code, grader) != progress_report._key(spanish, grader)
    assert progress_report._key(english, grader) != progress_report._key(spanish, grader)
    assert progress_report._key(english, grader) != progress_report._key(english, grader + "0")


@pytest.mark.slow
def test_progress_answers_in_the_language_of_each_notebook(tmp_path, monkeypatch):
    """Two languages in one folder, read from an English notebook: each lesson's messages are
    in its own notebook's language, also after a notebook is replaced by another language's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", "en")  # the notebook that calls progress()
    # the grader's files do not change during this test (a change re-runs all: see the test above)
    monkeypatch.setattr(progress_report, "grader_fingerprint", lambda: "this version of the grader")
    folder = tmp_path / "course"
    shutil.copytree(ROOT / "release" / "01_requires_grad", folder / "01_requires_grad")
    shutil.copytree(ROOT / "release" / "es" / "02_backward", folder / "02_backward")

    def quick_checks(report) -> dict:
        """Lesson → the messages of its unanswered Quick Checks."""
        return {name: {msg for n, test, _, _, msg in report.rows if n == name and test.startswith("quiz_")}
                for name in ("01_requires_grad", "02_backward")}

    first = lessons.progress(folder)
    assert first.ran == ["01_requires_grad", "02_backward"]
    quiz = quick_checks(first)
    assert quiz["01_requires_grad"] and all(m.startswith(_quick_check_opening("en")) for m in quiz["01_requires_grad"])
    assert quiz["02_backward"] and all(m.startswith(_quick_check_opening("es")) for m in quiz["02_backward"])

    # the same lesson, same code, now in Spanish: run again, answered in Spanish
    shutil.copy(ROOT / "release" / "es" / "01_requires_grad" / "01_requires_grad.ipynb",
                folder / "01_requires_grad" / "01_requires_grad.ipynb")
    second = lessons.progress(folder)
    assert second.ran == ["01_requires_grad"]
    quiz = quick_checks(second)
    assert all(m.startswith(_quick_check_opening("es")) for m in quiz["01_requires_grad"] | quiz["02_backward"])
    assert lessons.progress(folder).ran == []  # nothing changed: all cached

    # the English copies elsewhere, with the same cache: English again, and the Spanish stay cached
    shutil.copytree(ROOT / "release" / "01_requires_grad", tmp_path / "english" / "01_requires_grad")
    english = lessons.progress(tmp_path / "english")
    assert english.ran == ["01_requires_grad"]
    assert all(msg.startswith(_quick_check_opening("en")) for _, test, _, _, msg in english.rows if test.startswith("quiz_"))
    assert lessons.progress(folder).ran == []
