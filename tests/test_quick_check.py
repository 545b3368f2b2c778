"""Graded Quick Check answers: the visible test records the form of the answer only, the
hidden test (the key is only in the instructor's source notebook) judges it."""
from __future__ import annotations

import pytest

from autograder.judges import quick_check
from autograder.judges.data import roundtrip
from autograder.kernel.checks import check_choice


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


def graded_keys() -> dict:
    """question id → key, from the hidden tests of the instructor's source notebooks."""
    import ast

    from helpers import ROOT, read
    keys = {}
    for path in ROOT.glob("source/*/*.ipynb"):
        for cell in read(path).cells:
            for node in ast.walk(ast.parse(cell.source)) if cell.cell_type == "code" else []:
                if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "check_choice":
                    key = [k.value.value for k in node.keywords if k.arg == "key"]
                    if key:
                        keys[node.args[0].value] = key[0]
    return keys


def test_every_graded_question_has_a_key_and_the_keys_are_balanced():
    keys = graded_keys()
    assert len(keys) >= 13
    counts = {letter: list(keys.values()).count(letter) for letter in "abcd"}
    assert min(counts.values()) >= 2 and max(counts.values()) <= 4, counts


def test_the_keys_do_not_ship_with_the_lessons():
    """Nothing a student has (the release notebooks, the lesson packages) holds a graded key:
    no release cell passes a key, and no lesson file even names a graded question (the
    practice questions are others)."""
    from helpers import ROOT
    keys = graded_keys()
    for path in ROOT.glob("release/*/*.ipynb"):
        assert "key=" not in path.read_text(), path
    for path in [*ROOT.glob("lessons/**/*.py"), *ROOT.glob("lessons/locale/*.toml")]:
        text = path.read_text()
        assert not [q for q in keys if f'"{q}"' in text or f"[quiz.{q}]" in text], path
