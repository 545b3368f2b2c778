"""Judges: verdicts from data, never from student code.

Each module here judges one exercise, named by lesson and exercise. A *function*
judge builds the scenario a student's function is run on (initial weights, batches,
stale gradients, drawn from a seed) and verifies what the kernel observed while it ran
(parameters after every step, returned values) by recomputing it; a *value* judge
checks an answer (a Quick Check letter, predicted numbers) against a truth it computes
or a key it is given. Judges receive JSON data only (``data.decode``), so they are the
same code in the grader's judge process, which decides points and never runs student
code, and in a student's own kernel, where the same verdict gives instant feedback.

``CHECKS`` says, for each ``check_*`` function the test cells call, which judge
decides it and how its arguments are read, so the judge process can tell from the
instructor's test cell which checks that cell must pass.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from .verdict import PASS, Verdict  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class CheckSpec:
    function: str  # the name test cells call
    judge: str  # the judging module, under autograder.judges
    kind: str  # "function": runs the student's function on a scenario; "value": judges an answer
    params: tuple  # the check function's parameters, in order
    subject: str  # the parameter that holds the student's answer or function
    secret: tuple = ()  # parameters only the judge may see (a Quick Check's key): never sent to a kernel

    def module(self) -> ModuleType:
        return importlib.import_module(f"{__name__}.{self.judge}")


CHECKS = {spec.function: spec for spec in [
    CheckSpec("check_graph_predictions", "lesson1.graph_predictions", "value", ("answers", "cases"), "answers"),
    CheckSpec("check_freeze_body", "lesson1.freeze_body", "function", ("freeze_body", "cases"), "freeze_body"),
    CheckSpec("check_derivative", "lesson2.derivative", "function", ("derivative", "cases"), "derivative"),
    CheckSpec("check_numerical_grad", "lesson2.numerical_grad", "function", ("numerical_grad", "cases"),
              "numerical_grad"),
    CheckSpec("check_weighted_grad", "lesson2.weighted_grad", "function", ("weighted_grad", "cases"),
              "weighted_grad"),
    CheckSpec("check_grad_predictions", "lesson3.grad_predictions", "value", ("answers", "cases"), "answers"),
    CheckSpec("check_train_loop", "lesson3.train_loop", "function", ("train", "cases"), "train"),
    CheckSpec("check_train_accumulate", "lesson3.train_accumulate", "function", ("train_accumulate", "cases"),
              "train_accumulate"),
    CheckSpec("check_fit_line", "lesson3.fit_line", "function", ("fit_line", "cases"), "fit_line"),
    CheckSpec("check_dead_parameters", "lesson3.dead_parameters", "function", ("dead_parameters", "cases"),
              "dead_parameters"),
    CheckSpec("check_predict", "lesson4.predict", "function", ("predict", "cases"), "predict"),
    CheckSpec("check_sgd_step", "lesson4.sgd_step", "function", ("sgd_step", "cases"), "sgd_step"),
    CheckSpec("check_evaluate", "lesson4.evaluate", "function", ("evaluate", "cases"), "evaluate"),
    CheckSpec("check_choice", "quick_check", "value", ("question", "answer", "key", "cases"), "answer", ("key",)),
]}


def select(table: dict, cases: str) -> list:
    """The entries of a ``{"visible": [...], "hidden": [...]}`` table for ``visible``,
    ``hidden`` or ``all``."""
    if cases == "all":
        return table["visible"] + table["hidden"]
    if cases not in table:
        raise ValueError(f"cases must be 'visible', 'hidden' or 'all', not {cases!r}")
    return table[cases]
