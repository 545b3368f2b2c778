"""lessons.progress(): read the notebooks on disk, run only their graded cells, cache by content."""
from __future__ import annotations

import shutil

import catalogue
import nbformat
import pytest
from helpers import ROOT, fill, points, read, solutions

import lessons

pytestmark = pytest.mark.slow


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shutil.copytree(ROOT / "release", tmp_path / "release")
    return tmp_path / "release"


def _solve(workdir, name, **overrides):
    nb = fill(read(ROOT / "release" / name / f"{name}.ipynb"),
              dict(solutions(read(ROOT / "source" / name / f"{name}.ipynb")), **overrides))
    nbformat.write(nb, str(workdir / name / f"{name}.ipynb"))


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

    again = lessons.progress(workdir)
    assert again.ran == [] and again.rows == report.rows  # nothing changed: nothing re-run

    _solve(workdir, "04_no_grad")
    third = lessons.progress(workdir)
    assert third.ran == ["04_no_grad"]
    assert third.score == (total["01_requires_grad"] + lesson_3 + total["04_no_grad"], sum(total.values()))


def test_progress_says_which_notebooks_are_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shutil.copytree(ROOT / "release" / "02_backward", tmp_path / "02_backward")
    report = lessons.progress(tmp_path)
    assert report.missing == ["01_requires_grad", "03_zeroing_grad", "04_no_grad"]
    assert {name for name, *_ in report.rows} == {"02_backward"}
