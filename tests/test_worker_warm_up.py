"""While one worker grades the instructor's notebook, the others warm up: the feedback page's
templates compiled and the released cells rendered, in memory only."""
from __future__ import annotations

import shutil

import pytest
from helpers import ROOT

from autograder.instructor.course_config import course_config
from autograder.instructor.grading import worker
from autograder.instructor.passes import feedback_exporter

NAME = "03_zeroing_grad"


def _files(root) -> dict:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in sorted(root.rglob("*"))}


@pytest.fixture
def course(tmp_path, monkeypatch):
    import nbgrader.api

    root = tmp_path / "course"
    root.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "release" / NAME, root / "release" / NAME)
    monkeypatch.chdir(tmp_path)  # (init moves into the course folder)
    monkeypatch.setattr(nbgrader.api, "create_engine", nbgrader.api.create_engine)  # (init wraps it)
    monkeypatch.setattr(worker, "WORKER", {})
    monkeypatch.setattr(feedback_exporter, "_RENDERED", {})
    worker.init(str(root), course_config(root), {}, exit_fast=False)
    return root


def test_a_warm_up_renders_the_released_cells_and_writes_nothing(course):
    before = _files(course)
    assert worker.warm_up(NAME) == "warm"
    assert _files(course) == before
    rendered = feedback_exporter._RENDERED
    assert sum(key[0] == "code" for key in rendered) > 20 and sum(key[0] == "markdown" for key in rendered) > 20


def test_a_warm_up_that_fails_costs_nothing(course):
    (course / "release" / NAME / f"{NAME}.ipynb").write_text("{ not a notebook")
    before = _files(course)
    assert worker.warm_up(NAME) == "cold"
    assert _files(course) == before
