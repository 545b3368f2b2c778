"""Graded Quick Check answers: the visible test records the form of the answer only, the
hidden test (the key is only in the instructor's source notebook) judges it."""
from __future__ import annotations

import pytest

from autograder.judges import quick_check
from autograder.kernel.checks import check_choice
from autograder.wire.codec import roundtrip


@pytest.mark.parametrize("answer,key,ok,mistake", [
    ("b", None, True, ""), (" B) ", None, True, ""), ("b", "b", True, ""),
    ("a", "b", False, "wrong_choice"), ("e", None, False, "unanswered"), (None, None, False, "unanswered"),
    (2, "b", False, "unanswered"), (["b"], "b", False, "unanswered"),
])
def test_verdicts(answer, key, ok, mistake):
    verdict = quick_check.verify_value(roundtrip(answer), "visible", question="l3_q1", key=key)
    assert verdict.ok is ok and verdict.mistake == mistake, verdict.message


def test_visible_check_says_the_answer_is_only_recorded(capsys):
    check_choice("l3_q1", "c")
    out = capsys.readouterr().out
    assert "recorded" in out and "checked when your notebook is graded" in out
    with pytest.raises(AssertionError, match="set your answer to one of a, b, c, d"):
        check_choice("l3_q1", None)


def test_hidden_check_names_a_wrong_answer_without_giving_the_key(capsys):
    check_choice("l3_q1", "b", key="b")
    assert "right" in capsys.readouterr().out
    with pytest.raises(AssertionError) as failure:
        check_choice("l3_q1", "a", key="b")
    assert '"a" is not the best answer' in str(failure.value) and '"b"' not in str(failure.value)
