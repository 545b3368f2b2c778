"""What the judge reads from the instructor's test cells: the checks each must pass, the
answers to commit, the options (a hidden key) written as constants."""
from __future__ import annotations

import ast

import pytest
from helpers import ROOT

from autograder.instructor.judging import cells as test_cells
from autograder.wire.codec import Opaque

SOURCES = sorted((ROOT / "source").glob("*/*.ipynb"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.parent.name)
def test_every_test_cell_of_the_course_is_judged(path):
    cells = test_cells.of_notebook(path)
    assert cells and all(cells.values()), {cell: calls for cell, calls in cells.items() if not calls}


def test_a_hidden_key_and_the_cases_are_read_as_constants():
    calls = test_cells.required_checks(
        'check_choice("l3_q1", answer_q1)\n### BEGIN HIDDEN TESTS\ncheck_choice("l3_q1", answer_q1, key="c")\n'
        "check_train_loop(train, cases='hidden')")
    assert [(c.spec.check, c.cases, c.options) for c in calls] == [
        ("check_choice", "visible", {"question": "l3_q1"}), ("check_choice", "visible", {"question": "l3_q1", "key": "c"}),
        ("check_train_loop", "hidden", {})]
    assert calls[0].names() == {"answer_q1"} and calls[2].names() == set()


def test_answers_are_evaluated_from_committed_data_only():
    (call,) = test_cells.required_checks('check_accumulation_predictions({"grad_before": grad_before, "two": (a, 2.0)})')
    assert call.names() == {"grad_before", "a"}
    value = test_cells.evaluate(call.subject, {"grad_before": None, "a": {"$tuple": [1, 2]}})
    assert value == {"grad_before": None, "two": ((1, 2), 2.0)}
    assert test_cells.evaluate(call.subject, {}) == {"grad_before": Opaque("missing"), "two": (Opaque("missing"), 2.0)}


@pytest.mark.parametrize("source", [
    "check_choice('q', answer, key=secret_key)",  # the key must be a constant
    "check_train_loop(train, cases=which)",
    "check_choice('q', answer, colour='red')",
    "check_choice('q', answer, **options)",
])
def test_a_cell_the_judge_cannot_read_is_refused(source):
    with pytest.raises(test_cells.UnsupportedTestCell):
        test_cells.required_checks(source)


def test_an_answer_that_is_code_is_refused():
    (call,) = test_cells.required_checks("check_accumulation_predictions(make_answers())")
    with pytest.raises(test_cells.UnsupportedTestCell):
        test_cells.evaluate(call.subject, {})
    assert isinstance(call.subject, ast.Call)
