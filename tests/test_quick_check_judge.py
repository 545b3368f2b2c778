"""Graded Quick Check answers in a student's own kernel. Working alone (no ``variants.json``
beside the notebook: Binder, self-study), the published variant is shown and the check says
at once whether the answer is right, and why. In a course, the student's own variant is
shown and the answer is only recorded: the judge alone knows the key."""
from __future__ import annotations

import json

import pytest

from autograder import messages
from autograder.instructor.exchange.variants import write
from autograder.exercises.choice import judge as quick_check
from autograder.judges import variants
from autograder.kernel.checks import check_choice
from autograder.wire.codec import roundtrip
from lessons import quiz

PUBLISHED = {q: variants.variant(q, None) for q, family in variants.FAMILIES.items() if family.options}


@pytest.mark.parametrize("answer,key,ok,mistake", [
    ("b", None, True, ""), (" B) ", None, True, ""), ("b", "b", True, ""),
    ("a", "b", False, "wrong_choice"), ("e", None, False, "unanswered"), (None, None, False, "unanswered"),
    (2, "b", False, "unanswered"), (["b"], "b", False, "unanswered"),
])
def test_verdicts(answer, key, ok, mistake):
    verdict = quick_check.verify_value(roundtrip(answer), "visible", question="l3_q1", key=key)
    assert verdict.ok is ok and verdict.mistake == mistake, verdict.message


@pytest.fixture
def alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    return tmp_path


@pytest.fixture
def in_course(tmp_path, monkeypatch):
    """A student's folder as ``nbgrader fetch_assignment`` leaves it, variants and all."""
    write(tmp_path, "01_requires_grad", b"a course secret", ["ada", "grace"])
    monkeypatch.chdir(tmp_path / "release" / "01_requires_grad")
    monkeypatch.setenv("JUPYTERHUB_USER", "ada")
    return tmp_path


@pytest.mark.parametrize("question", sorted(q for q, family in variants.FAMILIES.items() if family.options))
def test_alone_the_check_says_at_once_whether_it_is_right_and_why(question, alone, capsys):
    published = PUBLISHED[question]
    check_choice(question, published.key)
    out = capsys.readouterr().out
    number = question.rsplit("q", 1)[1]  # named as its heading names it ("Question 1"), never by its id
    assert out.startswith(f"Question {number}: right.") and len(out) > 60 and question not in out, out
    for letter in "abcd":
        if letter != published.key:
            with pytest.raises(AssertionError, match=f'"{letter}" is not the best answer') as wrong:
                check_choice(question, letter)
            option = published.order["abcd".index(letter)]
            assert wrong.value.args[0].endswith(messages.text(f"quiz.{question}.why_{option}",
                                                                  **published.params))


def test_alone_an_answer_of_the_wrong_form_says_so(alone):
    with pytest.raises(AssertionError, match="set your answer to one of a, b, c, d"):
        check_choice("l1_q1", None)
    with pytest.raises(AssertionError, match="set your answer to one of a, b, c, d"):
        check_choice("l1_q1", "e")


def test_in_a_course_the_answer_is_only_recorded(in_course, capsys):
    for letter in "abcd":
        check_choice("l1_q1", letter)
        out = capsys.readouterr().out
        out = " ".join(out.split())  # as the student reads it, whatever the line breaks
        assert "recorded" in out and "checked when your notebook is graded" in out and ": right." not in out
    with pytest.raises(AssertionError, match="set your answer to one of a, b, c, d"):
        check_choice("l1_q1", None)


def test_in_a_course_the_question_cell_shows_the_students_own_variant(in_course, monkeypatch):
    shown = {}
    for student in ("ada", "grace"):
        monkeypatch.setenv("JUPYTERHUB_USER", student)
        shown[student] = {q: quiz.connection.judge().variant(q) for q in ("l1_q1", "l1_q2", "l1_q3")}
        for q, variant in shown[student].items():
            assert variant == variants.of_student(b"a course secret", q, student).shown()
    assert shown["ada"] != shown["grace"]
    monkeypatch.setenv("JUPYTERHUB_USER", "eve")  # not on the list: the published one, and a warning
    assert quiz.question_markdown("l1_q1", quiz.connection.judge().variant("l1_q1")).startswith(
        "*Your own variant of this question was not found")


def test_the_variants_file_holds_no_key_and_no_student_name(in_course):
    text = (in_course / "release" / "01_requires_grad" / "variants.json").read_text()
    data = json.loads(text)
    assert "ada" not in text and "grace" not in text and len(data["students"]) == 2
    for entry in data["students"].values():
        for shown in entry.values():
            assert set(shown) == {"question", "code", "order", "params", "published"}


def test_a_key_given_by_a_hidden_test_still_decides(alone, capsys):
    check_choice("l1_q1", "b", key="b")
    assert "right" in capsys.readouterr().out
    with pytest.raises(AssertionError) as failure:
        check_choice("l1_q1", "a", key="b")
    assert '"a" is not the best answer' in str(failure.value) and '"b"' not in str(failure.value)


@pytest.mark.parametrize("entry", ["not a dict", {"code": 1, "order": [], "params": {}}, {"code": "x = 1"}, None])
def test_a_broken_variants_entry_shows_the_published_question_with_a_note(in_course, entry):
    path = in_course / "release" / "01_requires_grad" / "variants.json"
    data = json.loads(path.read_text())
    mine = next(iter(data["students"]))  # whose it is does not matter: every entry is replaced
    data["students"] = {key: {"l1_q1": entry} for key in data["students"]}
    assert mine in data["students"]
    path.write_text(json.dumps(data))
    shown = quiz.connection.judge().variant("l1_q1")
    assert shown["missing"] and shown["code"] == PUBLISHED["l1_q1"].code
    path.write_text("{not json")
    assert quiz.connection.judge().variant("l1_q1")["missing"]
