"""The checks notebooks call. Each raises ``AssertionError`` carrying the feedback.

The same function serves a visible test cell (``cases="visible"``), a hidden test cell
(``cases="hidden"``) and a student's own ``check()``. Nothing a correct solution
does may reach stderr here: nbgrader scores a test cell with any stderr output 0, so
warnings raised while the student's code runs are recorded, never printed.
"""
from __future__ import annotations

import contextlib
import io
import warnings

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


def _selected(case_table: dict, cases: str) -> list:
    if cases == "all":
        return case_table["visible"] + case_table["hidden"]
    return case_table[cases]


def _raise_unless_ok(verdict: Verdict, what: str) -> None:
    __tracebackhide__ = True
    if not verdict.ok:
        raise AssertionError(verdict.message)
    print(messages.text("general.passed", what=what))


def _check_loop(fn, table: dict, cases: str, name: str) -> None:
    __tracebackhide__ = True
    with _quiet():
        for case in _selected(table, cases):
            verdict, _ = judge_loop(fn, case, name=name)
            if not verdict.ok:
                break
    _raise_unless_ok(verdict, f"{name} ({cases} cases)")


def check_train_loop(train, cases: str = "visible") -> None:
    """Exercise (b): one pass of a training loop that clears, steps and reports losses."""
    __tracebackhide__ = True
    _check_loop(train, case_sets.TRAIN_LOOP, cases, "train")


def check_train_accumulate(train_accumulate, cases: str = "visible") -> None:
    """Exercise (c): gradient accumulation over ``accum_steps`` micro-batches."""
    __tracebackhide__ = True
    _check_loop(train_accumulate, case_sets.TRAIN_ACCUMULATE, cases, "train_accumulate")


def check_fit_line(fit_line, cases: str = "visible") -> None:
    """Exercise (d): manual SGD on raw tensors, clearing .grad by hand."""
    __tracebackhide__ = True
    with _quiet():
        verdict = judge_fit_line(fit_line, cases)
    _raise_unless_ok(verdict, f"fit_line ({cases} cases)")


def check_grad_predictions(answers: dict, part: str = "visible") -> None:
    """Exercise (a): predicted values of .grad."""
    __tracebackhide__ = True
    verdict = judge_predictions(answers, part)
    _raise_unless_ok(verdict, f"predictions ({part})")


__all__ = ["check_train_loop", "check_train_accumulate", "check_fit_line",
           "check_grad_predictions"]
