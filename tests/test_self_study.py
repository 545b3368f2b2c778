"""A student working alone (no grading run: Binder, self-study), checked in sequences, as they
work: a wrong answer, then a right one; a check stopped half-way, then the fixed code; every part
of a prediction said right or wrong; a failed check shown as its message alone. And the same
checks in a course (``variants.json`` beside the notebook), where graded parts are left to
grading and said so."""
from __future__ import annotations

import textwrap

import pytest
import torch

import catalogue

from autograder.instructor.exchange.variants import write
from autograder.judges import variants
from autograder.exercises.graph_predictions.judge import true_properties
from autograder.exercises.accumulation_predictions.judge import true_values, v_truth
from autograder.judges.local import LocalJudge
from autograder.kernel import checks, connection
from autograder.kernel.checks import CheckFailed
from autograder.exercises import BY_NAME

GRAPH_RIGHT = true_properties()
ACCUMULATION_RIGHT = {**true_values(), **v_truth(None)}


@pytest.fixture
def alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", "en")
    return tmp_path


@pytest.fixture
def in_course(tmp_path, monkeypatch):
    write(tmp_path, "01_requires_grad", b"a course secret", ["ada"])
    write(tmp_path, "03_zeroing_grad", b"a course secret", ["ada"])
    monkeypatch.setenv("JUPYTERHUB_USER", "ada")
    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", "en")
    return tmp_path


def _failure(check, *args) -> str:
    with pytest.raises(CheckFailed) as failed:
        check(*args)
    return str(failed.value)


# -- a failed check is its message alone ------------------------------------------------------
def test_a_failed_check_renders_as_its_message_alone(alone):
    """IPython shows an exception through ``_render_traceback_``: the cell shows these lines
    only, with no "Traceback", no frame of the grader and no path of its files."""
    message = _failure(checks.check_choice, "l3_q1", None)
    with pytest.raises(CheckFailed) as failed:
        checks.check_choice("l3_q1", None)
    assert failed.value._render_traceback_() == [message]
    assert isinstance(failed.value, AssertionError)  # nbgrader and pytest still see a failed assertion
    shown = "\n".join(failed.value._render_traceback_())
    assert "Traceback" not in shown and "autograder" not in shown and ".py" not in shown


def test_the_failure_renders_itself_in_a_real_ipython_shell(alone, capsys):
    """The traceback IPython builds for a failing check cell is the message, line for line."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shown = []
    shell._showtraceback = lambda etype, value, stb: shown.append(stb)
    shell.run_cell("from autograder.kernel.checks import check_choice\ncheck_choice('l3_q1', 'e')")
    assert shown == [[_failure(checks.check_choice, "l3_q1", "e")]]


# -- the self-study judge: every check judged against its own scenarios ---------------------
def _loop(source: str):
    namespace = {"torch": torch}
    exec(textwrap.dedent(source), namespace)
    return namespace["train"]


RIGHT_LOOP = _loop(next(e.source for e in catalogue.TRAIN_LOOP if e.name == "canonical"))
NEVER_CLEARED = _loop(next(e.source for e in catalogue.TRAIN_LOOP if e.name == "never_cleared"))


class Interrupted(BaseException):
    """What a student's Stop button raises in their kernel (a KeyboardInterrupt), here our own
    kind so that pytest does not take it for the test run's."""


def _stops_half_way(*args):
    raise Interrupted


def _central(f, x, h):
    return torch.stack([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in torch.eye(len(x))])


class StopsAtSecondCase:
    """Right on the check's first scenario, then stopped there (the student pressed Stop while
    the check ran its second scenario)."""

    def __init__(self, right):
        self.right, self.calls = right, 0

    def __call__(self, *args):
        self.calls += 1
        if self.calls == 2:
            raise Interrupted
        return self.right(*args)


def _loop_stopped_after_one_step(model, optimizer, loss_fn, batches):
    for x, y in batches:
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
        raise Interrupted


EXERCISES = {  # name → (a wrong answer, the right one, the right one stopped half-way through the check)
    "train_loop": (NEVER_CLEARED, RIGHT_LOOP, lambda: _loop_stopped_after_one_step),
    "numerical_grad": (lambda f, x, h: torch.zeros_like(x), _central, lambda: StopsAtSecondCase(_central)),
}
SEQUENCES = [["wrong"], ["wrong", "hint"], ["stop"], ["stop second"], ["wrong", "stop", "wrong", "hint"],
             ["stop second", "wrong", "hint", "hint"]]


@pytest.mark.parametrize("name", sorted(EXERCISES))
@pytest.mark.parametrize("sequence", SEQUENCES, ids="-".join)
def test_a_right_answer_after_wrong_and_stopped_checks_passes(alone, capsys, name, sequence):
    """Whatever came before (wrong answers, hints, checks stopped half-way), the right code
    passes at its first check, and again when the cell is run again. (Once, the self-study
    judge named a scenario by the number pending, so after a check that stopped early the
    right answer was judged against another scenario: "wrong" then "right" on numerical_grad
    failed.)"""
    from lessons import exercises

    spec = BY_NAME[name]
    check, (wrong, right, half_way) = getattr(checks, spec.check), EXERCISES[name]
    connection._judge = LocalJudge()
    for step in sequence:
        if step == "wrong":
            _failure(check, wrong)
        elif step == "hint":
            getattr(exercises, name).hint(1, namespace={spec.answer[0]: wrong})
        else:
            with pytest.raises(Interrupted):
                check(_stops_half_way if step == "stop" else half_way())
    capsys.readouterr()
    for _ in range(2):
        check(right)
        assert capsys.readouterr().out.startswith("All checks passed")


def test_pending_scenarios_are_bounded(alone):
    judge = LocalJudge()
    for _ in range(judge.MAX_PENDING // 2 + 10):
        judge.scenarios(BY_NAME["fit_line"], "visible")
        judge.scenarios(BY_NAME["fit_line"], "visible")
    assert len(judge._issued) == judge.MAX_PENDING
    assert judge.report("never-issued", {}).mistake == "malformed"


# -- predictions: every part said, right or wrong --------------------------------------------
def test_alone_every_wrong_graph_prediction_is_named_with_its_explanation(alone):
    """The graded parts (z, d) too: working alone, on the published code, whose truth is public."""
    wrong = dict(GRAPH_RIGHT, z=(True, True, None), d=(True, False, "SumBackward0"))
    lines = _failure(checks.check_graph_predictions, wrong).splitlines()
    assert lines[0] == "2 of your 5 answers are not right yet:"
    assert lines[1:4] == ["✓ `x`: right.", "✓ `k`: right.", "✓ `y`: right."]
    assert lines[4].startswith("✗ `z` is not a leaf") and lines[5].startswith("✗ `d` does not require grad")


def test_alone_right_predictions_pass_only_when_all_are_right(alone, capsys):
    checks.check_graph_predictions(dict(GRAPH_RIGHT))
    assert capsys.readouterr().out == "All checks passed: Exercise (a) (visible tests).\n"
    only_d = dict(GRAPH_RIGHT, d=(True, True, None))
    assert _failure(checks.check_graph_predictions, only_d).startswith("1 of your 5 answers is not right yet:")


@pytest.mark.parametrize("part", sorted(ACCUMULATION_RIGHT))
def test_alone_each_wrong_gradient_prediction_is_named(alone, part):
    """Each of the eight, the four graded ``v`` ones included, on its own."""
    right = ACCUMULATION_RIGHT[part]
    answers = dict(ACCUMULATION_RIGHT, **{part: 1.5 if right is None else right + 1.0})
    lines = _failure(checks.check_accumulation_predictions, answers).splitlines()
    assert lines[0] == "1 of your 8 answers is not right yet:"
    assert sum(line.startswith("✗") for line in lines) == 1
    assert next(line for line in lines if line.startswith("✗")).startswith(f"✗ `{part}`")


def test_alone_all_v_predictions_wrong_is_not_a_pass(alone):
    answers = dict(ACCUMULATION_RIGHT, v_grad_before=0.0, v_grad_after_one=9.0, v_grad_after_two=9.0,
                   v_grad_after_clear=18.0)
    assert _failure(checks.check_accumulation_predictions, answers).startswith("4 of your 8 answers are not right")


def test_in_a_course_the_graded_parts_are_left_to_grading_and_said(in_course, monkeypatch, capsys):
    """The kernel holds no key: the visible check judges the public parts and says that the
    graded ones are checked when the notebook is graded, never "All checks passed"."""
    monkeypatch.chdir(in_course / "release" / "01_requires_grad")
    mine = true_properties(LocalJudge().variant("l1_graph_predictions"))  # ada's own code, as her notebook shows it
    wrong_graded = dict(mine, z=(not mine["z"][0], True, None), d=(not mine["d"][0], False, "SumBackward0"))
    checks.check_graph_predictions(wrong_graded)
    out = " ".join(capsys.readouterr().out.split())
    assert out == "Right: `x`, `k`, `y` (visible tests). The grader checks `z`, `d` when it grades your notebook."
    monkeypatch.chdir(in_course / "release" / "03_zeroing_grad")
    checks.check_accumulation_predictions(dict(ACCUMULATION_RIGHT, v_grad_after_one=123.0))
    out = capsys.readouterr().out
    assert "All checks passed" not in out and "`v_grad_after_one`" in out and "when it grades" in out
    monkeypatch.chdir(in_course / "release" / "01_requires_grad")
    wrong_x = dict(mine, x=(not mine["x"][0], *mine["x"][1:]))
    assert _failure(checks.check_graph_predictions, wrong_x).startswith("`x` ")


def test_in_a_course_a_student_without_a_variant_is_not_told_the_published_truth(in_course, monkeypatch, capsys):
    monkeypatch.setenv("JUPYTERHUB_USER", "not-on-the-list")
    monkeypatch.chdir(in_course / "release" / "01_requires_grad")
    checks.check_graph_predictions(dict(GRAPH_RIGHT, z=(False, False, None)))
    assert "when it grades" in capsys.readouterr().out


@pytest.mark.parametrize("lang,right,question", [("zh", "正确", "第 1 题"), ("es", "correcta", "Pregunta 1"),
                                                  ("sv", "rätt", "Fråga 1")])
def test_questions_are_named_as_their_headings_in_the_notebooks_language(alone, monkeypatch, capsys, lang, right,
                                                                           question):
    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", lang)
    key = variants.variant("l3_q1", None).key
    checks.check_choice("l3_q1", key)
    out = capsys.readouterr().out
    assert out.startswith(f"{question}：{right}" if lang == "zh" else f"{question}: {right}") and "l3_q1" not in out
    assert _failure(checks.check_choice, "l3_q1", None).startswith(question)


# -- laid out for the screen -------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "zh", "fr"])
def test_messages_break_between_words_within_the_output_width(alone, monkeypatch, lang):
    """JupyterLab breaks a text output's long line anywhere, mid-word: lines come broken
    between words, no wider than the output area (a Chinese character is two columns)."""
    from autograder.kernel.screen import WIDTH, columns, wrap

    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", lang)
    message = _failure(checks.check_train_loop, NEVER_CLEARED)
    with pytest.raises(CheckFailed) as failed:
        checks.check_train_loop(NEVER_CLEARED)
    lines = failed.value._render_traceback_()
    assert len(lines) > 1 and all(columns(line) <= WIDTH for line in lines), lines
    assert "".join("".join(lines).split()) == "".join(message.split())  # nothing lost, nothing added
    if lang != "zh":  # every break falls between two words
        assert " ".join(lines) == " ".join(message.split())
    assert wrap("x" * 200) == "x" * 200  # a piece longer than a line stays whole


def test_an_answer_not_written_yet_is_one_sentence_in_the_notebooks_language(alone, monkeypatch):
    """nbgrader's stub, run (Run All on a fresh lesson), says what to do instead of showing
    Python's English traceback; a NotImplementedError with a message of its own is as usual."""
    from IPython.core.interactiveshell import InteractiveShell

    from autograder.kernel.screen import wrap
    from lessons import stub
    from lessons.text import text

    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", "es")
    shell = InteractiveShell.instance()
    shown = []
    monkeypatch.setattr(shell, "_showtraceback", lambda etype, value, stb: shown.append(stb))
    monkeypatch.setattr(shell, "custom_exceptions", ())
    stub.install()
    try:
        result = shell.run_cell("predictions = {}\n# YOUR CODE HERE\nraise NotImplementedError()")
        assert isinstance(result.error_in_exec, NotImplementedError)  # the cell still fails
        assert shown[-1] == wrap(text("exercise.stub")).splitlines() and "Todavía" in shown[-1][0]
        shell.run_cell("def f():\n    raise NotImplementedError('my own reason')\nf()")
        assert "my own reason" in "\n".join(shown[-1]) and len(shown[-1]) > 1
    finally:
        shell.set_custom_exc((), None)
