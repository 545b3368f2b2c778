"""The checks notebooks call. Each raises ``AssertionError`` carrying the feedback.

The same function serves a visible test cell (``cases="visible"``), a hidden test cell
(``cases="hidden"``) and a student's own ``exercise.check()``. A function check asks
the judge for scenarios, runs the student's function on each here, in the kernel, and
sends the judge what it observed; the judge's verdict is the check's verdict. A value
check judges the answer as the judge will see it (``data.roundtrip``). While grading,
the judge itself, in another process, decides the points; this module only reports
and explains, so nothing done to it in the kernel can earn a point.

Nothing a correct solution does may reach stderr here: nbgrader scores a test cell
with any stderr output 0, so warnings raised while the student's code runs are
recorded, never printed.
"""
from __future__ import annotations

import contextlib
import io
import warnings

from .. import messages
from ..judges import CHECKS
from ..judges.data import roundtrip
from ..judges.verdict import PASS, Verdict
from . import connection, observers


@contextlib.contextmanager
def _quiet():
    """Keep warnings and stray stderr writes out of the test cell's output."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stderr(io.StringIO()):
            yield


def _conclude(verdict: Verdict, what: str, cases: str) -> None:
    __tracebackhide__ = True
    if not verdict.ok:
        raise AssertionError(verdict.message)
    print(messages.text("general.passed", what=what, cases=messages.text(f"general.cases_{cases}")))


def _function_check(function: str, student, cases: str) -> None:
    """Ask the judge for scenarios, run ``student`` on each, report; the first failure wins."""
    __tracebackhide__ = True
    spec = CHECKS[function]
    try:
        judge = connection.judge()
        issued = judge.scenarios(spec, cases)
        verdict = Verdict(True)
        for token, data in issued:
            with _quiet():
                observation = observers.OBSERVERS[function](student, data, spec.subject)
            verdict = judge.report(token, observation)
            if not verdict.ok:
                break
    except connection.JudgeUnavailable as exc:
        verdict = Verdict.fail("judge_unavailable", "judge.unreachable", reason=str(exc)[:200])
    _conclude(verdict, spec.subject, cases)


def _value_check(function: str, answer, cases: str, **options) -> Verdict:
    __tracebackhide__ = True
    spec = CHECKS[function]
    with _quiet():
        verdict = spec.module().verify_value(roundtrip(answer), cases, **options)
    if not verdict.ok:
        raise AssertionError(verdict.message)
    return verdict


# Lesson 1
def check_graph_predictions(answers, cases: str = "visible") -> None:
    """Exercise 1(a): requires_grad, is_leaf and grad_fn of given tensors."""
    __tracebackhide__ = True
    _value_check("check_graph_predictions", answers, cases)
    _conclude(PASS, "answers", cases)


def check_freeze_body(freeze_body, cases: str = "visible") -> None:
    """Exercise 1(b): only the head receives gradients."""
    __tracebackhide__ = True
    _function_check("check_freeze_body", freeze_body, cases)


# Lesson 2
def check_derivative(derivative, cases: str = "visible") -> None:
    """Exercise 2(a): a derivative computed by autograd."""
    __tracebackhide__ = True
    _function_check("check_derivative", derivative, cases)


def check_numerical_grad(numerical_grad, cases: str = "visible") -> None:
    """Exercise 2(b): a central-difference gradient."""
    __tracebackhide__ = True
    _function_check("check_numerical_grad", numerical_grad, cases)


def check_weighted_grad(weighted_grad, cases: str = "visible") -> None:
    """Exercise 2(c): backward() on a non-scalar output with gradient=."""
    __tracebackhide__ = True
    _function_check("check_weighted_grad", weighted_grad, cases)


# Lesson 3
def check_grad_predictions(answers, cases: str = "visible") -> None:
    """Exercise 3(a): predicted values of .grad."""
    __tracebackhide__ = True
    _value_check("check_grad_predictions", answers, cases)
    _conclude(PASS, "answers", cases)


def check_train_loop(train, cases: str = "visible") -> None:
    """Exercise 3(b): one pass of a training loop that clears, steps and reports losses."""
    __tracebackhide__ = True
    _function_check("check_train_loop", train, cases)


def check_train_accumulate(train_accumulate, cases: str = "visible") -> None:
    """Exercise 3(c): gradient accumulation over ``accum_steps`` micro-batches."""
    __tracebackhide__ = True
    _function_check("check_train_accumulate", train_accumulate, cases)


def check_fit_line(fit_line, cases: str = "visible") -> None:
    """Exercise 3(d): manual SGD on raw tensors, clearing .grad by hand."""
    __tracebackhide__ = True
    _function_check("check_fit_line", fit_line, cases)


def check_dead_parameters(dead_parameters, cases: str = "visible") -> None:
    """Exercise 3(e): reading .grad to find the parameters that received no gradient."""
    __tracebackhide__ = True
    _function_check("check_dead_parameters", dead_parameters, cases)


# Lesson 4
def check_predict(predict, cases: str = "visible") -> None:
    """Exercise 4(a): inference that records no graph."""
    __tracebackhide__ = True
    _function_check("check_predict", predict, cases)


def check_sgd_step(sgd_step, cases: str = "visible") -> None:
    """Exercise 4(b): a manual SGD step under no_grad."""
    __tracebackhide__ = True
    _function_check("check_sgd_step", sgd_step, cases)


def check_evaluate(evaluate, cases: str = "visible") -> None:
    """Exercise 4(c): accuracy with eval() and no_grad(), mode restored."""
    __tracebackhide__ = True
    _function_check("check_evaluate", evaluate, cases)


# Quick Checks
def check_choice(question: str, answer, key: str | None = None, cases: str = "visible") -> None:
    """A graded Quick Check answer: one of "a"–"d"; with ``key`` (hidden tests only), the right one.
    Without the key the answer is only recorded: whether it is right is known when the
    notebook is graded."""
    __tracebackhide__ = True
    _value_check("check_choice", answer, cases, question=question, key=key)
    if key is None:
        print(messages.text("quiz.recorded", question=question, got=str(answer).strip().lower().rstrip(")")))
    else:
        print(messages.text("quiz.right", question=question))
