"""``exercises.<name>.solution()``: a model solution for a student working alone who has read the
last hint in this kernel; never in a course nor while grading (lessons.solutions says why the
text lives where it does). And the hints it follows lead without handing the code over."""
from __future__ import annotations

import json
import re
import socket

import pytest
from helpers import source_notebooks
from judging import judge_function

from autograder.kernel import connection
from autograder.kernel.screen import wrap
from autograder.wire.variants import VARIANTS_FILE
from lessons import exercises, solutions
from lessons.text import raw, text

SOURCES = source_notebooks()
MARKERS = re.compile(r"^\s*### (BEGIN|END) SOLUTION\n", re.M)


def _answer_cell(name: str) -> str:
    return next(c.source for nb in SOURCES.values() for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == name)


@pytest.mark.parametrize("name", sorted(solutions.SOLUTIONS))
def test_a_solution_is_the_source_notebooks_model_solution_and_passes_every_case(name):
    code = solutions.SOLUTIONS[name]
    assert code == MARKERS.sub("", _answer_cell(name) + "\n")
    namespace: dict = {}
    exec(code, namespace)
    (answer,) = next(spec.answer for spec in exercises.EXERCISES if spec.name == name)
    verdict, _ = judge_function(answer, namespace[answer], "all")
    assert verdict.ok, verdict.message


@pytest.fixture
def alone(tmp_path, monkeypatch):
    """A student working on their own: a fresh exercise object (no hint read in this kernel), the
    kernel's local judge, no course's variants beside the notebook."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(connection, "_judge", None)
    monkeypatch.delenv(connection.ENV_FD, raising=False)
    fresh = exercises._for(next(s for s in exercises.EXERCISES if s.name == "value_backward"))
    return fresh


def _said(capsys) -> str:
    return capsys.readouterr().out


def test_the_solution_opens_only_after_the_last_hint(alone, capsys):
    namespace = {"Value": None}
    not_yet = wrap(text("exercise.solution_after_hints", name=alone.title, call="exercises.value_backward.hint(3)"))
    alone.solution()
    assert _said(capsys) == not_yet + "\n"
    for level in (1, 2, 2):
        alone.hint(level, namespace=namespace)
    _said(capsys)
    alone.solution()
    assert _said(capsys) == not_yet + "\n"
    alone.hint(3, namespace=namespace)
    _said(capsys)
    alone.solution()
    shown = _said(capsys)
    assert shown.endswith(solutions.SOLUTIONS["value_backward"] + "\n")
    assert shown.startswith(wrap(text("exercise.solution_header", name=alone.title,
                                      why=raw("solution.value_backward"))))


def test_no_solution_in_a_course_even_after_every_hint(alone, capsys, tmp_path):
    (tmp_path / VARIANTS_FILE).write_text(json.dumps({"students": {}}))
    for level in (1, 2, 3):
        alone.hint(level, namespace={})
    _said(capsys)
    alone.solution()
    shown = _said(capsys)
    assert shown == wrap(text("exercise.solution_in_course", name=alone.title)) + "\n"
    assert "class Value" not in shown


def test_no_solution_while_grading(alone, capsys, monkeypatch):
    """A grading kernel talks to the grader's judge over a socket: solution() asks it nothing and
    shows nothing."""
    ours, theirs = socket.socketpair()
    try:
        monkeypatch.setattr(connection, "_judge", connection.RemoteJudge(ours.detach()))
        alone._last_hint_read = True
        alone.solution()
        assert _said(capsys) == wrap(text("exercise.solution_in_course", name=alone.title)) + "\n"
        theirs.setblocking(False)
        with pytest.raises(BlockingIOError):
            theirs.recv(1)  # nothing was sent to the judge
    finally:
        connection._judge._sock.close()
        theirs.close()


def test_an_exercise_without_a_solution_says_so(alone, capsys):
    exercises.freeze_body.solution()
    assert _said(capsys) == wrap(text("exercise.no_solution", name=exercises.freeze_body.title)) + "\n"


def test_the_hints_lead_without_the_code_of_the_solution():
    """No hint holds a line of the model backward() (or its order-building recursion in words a
    student would copy): hint 3 asks for the order's property; solution() gives the code."""
    backward = solutions.SOLUTIONS["value_backward"].split("def backward(self):")[1]
    lines = {line.strip() for line in backward.splitlines() if line.strip()}
    for level, hint in raw("hints.value_backward").items():
        assert not any(line in hint for line in lines), level
        assert "reversed(" not in hint and "visit(" not in hint and "seen" not in hint
    assert "solution()" in raw("hints.value_backward")["3"]
