"""The checks notebooks call. Each raises ``AssertionError`` carrying the feedback.

The same function serves a visible test cell (``cases="visible"``), a hidden test cell
(``cases="hidden"``) and a student's own ``exercise.check()``. Nothing a correct
solution does may reach stderr here: nbgrader scores a test cell with any stderr
output 0, so warnings raised while the student's code runs are recorded, never printed.
"""
from __future__ import annotations

import contextlib
import io
import warnings

from . import backward, graph, inference, running
from . import cases as case_sets
from . import messages
from .judge import Verdict, judge_loop
from .manual import judge_fit_line
from .predict import judge_predictions


@contextlib.contextmanager
def _quiet():
    """Keep warnings and stray stderr writes out of the test cell's output."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stderr(io.StringIO()):
            yield


def _check(judge, subject, cases: str, what: str) -> None:
    """Run a judge quietly; raise its message, or print that everything passed."""
    __tracebackhide__ = True
    with _quiet():
        verdict: Verdict = judge(subject, cases)
    if not verdict.ok:
        raise AssertionError(verdict.message)
    print(messages.text("general.passed", what=f"{what} ({cases})"))


def _loop_judge(table: dict, name: str):
    def judge(fn, cases: str) -> Verdict:
        return running.each_case(fn, name, table, cases, lambda f, case: judge_loop(f, case, name)[0])
    return judge


# Lesson 3
def check_train_loop(train, cases: str = "visible") -> None:
    """Exercise 3(b): one pass of a training loop that clears, steps and reports losses."""
    __tracebackhide__ = True
    _check(_loop_judge(case_sets.TRAIN_LOOP, "train"), train, cases, "train")


def check_train_accumulate(train_accumulate, cases: str = "visible") -> None:
    """Exercise 3(c): gradient accumulation over ``accum_steps`` micro-batches."""
    __tracebackhide__ = True
    _check(_loop_judge(case_sets.TRAIN_ACCUMULATE, "train_accumulate"), train_accumulate, cases,
           "train_accumulate")


def check_fit_line(fit_line, cases: str = "visible") -> None:
    """Exercise 3(d): manual SGD on raw tensors, clearing .grad by hand."""
    __tracebackhide__ = True
    _check(judge_fit_line, fit_line, cases, "fit_line")


def check_grad_predictions(answers: dict, part: str = "visible") -> None:
    """Exercise 3(a): predicted values of .grad."""
    __tracebackhide__ = True
    _check(judge_predictions, answers, part, "predictions")


# Lesson 1
def check_graph_predictions(answers: dict, part: str = "visible") -> None:
    """Exercise 1(a): requires_grad, is_leaf and grad_fn of given tensors."""
    __tracebackhide__ = True
    _check(graph.judge_properties, answers, part, "predictions")


def check_freeze_body(freeze_body, cases: str = "visible") -> None:
    """Exercise 1(b): only the head receives gradients."""
    __tracebackhide__ = True
    _check(graph.judge_freeze, freeze_body, cases, "freeze_body")


# Lesson 2
def check_derivative(derivative, cases: str = "visible") -> None:
    """Exercise 2(a): a derivative computed by autograd."""
    __tracebackhide__ = True
    _check(backward.judge_derivative, derivative, cases, "derivative")


def check_numerical_grad(numerical_grad, cases: str = "visible") -> None:
    """Exercise 2(b): a central-difference gradient."""
    __tracebackhide__ = True
    _check(backward.judge_numerical_grad, numerical_grad, cases, "numerical_grad")


def check_weighted_grad(weighted_grad, cases: str = "visible") -> None:
    """Exercise 2(c): backward() on a non-scalar output with gradient=."""
    __tracebackhide__ = True
    _check(backward.judge_weighted_grad, weighted_grad, cases, "weighted_grad")


# Lesson 4
def check_predict(predict, cases: str = "visible") -> None:
    """Exercise 4(a): inference that records no graph."""
    __tracebackhide__ = True
    _check(inference.judge_predict, predict, cases, "predict")


def check_sgd_step(sgd_step, cases: str = "visible") -> None:
    """Exercise 4(b): a manual SGD step under no_grad."""
    __tracebackhide__ = True
    _check(inference.judge_sgd_step, sgd_step, cases, "sgd_step")


def check_evaluate(evaluate, cases: str = "visible") -> None:
    """Exercise 4(c): accuracy with eval() and no_grad(), mode restored."""
    __tracebackhide__ = True
    _check(inference.judge_evaluate, evaluate, cases, "evaluate")
