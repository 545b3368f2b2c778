"""Judges: verdicts from data, never from student code.

Each exercise's judge is the ``judge.py`` of its folder (``autograder/exercises/fit_line/
judge.py``; this package is the judge side they belong to, with what they share: ``seeds``,
``variants``, ``training_loop``, and ``verdict``, the one way from what a kernel observed to a
verdict). A judge draws the scenarios a student's function is run on (``CASES``,
``scenario(case, seed)``: initial weights, batches, stale gradients, from a seed) and verifies
what the kernel observed while the function ran (``verify(data, observation)``: parameters
after every step, returned values) by recomputing it; a *value* judge checks an answer
(``verify_value``: a Quick Check letter, predicted numbers) against a truth it computes or a
key it is given. What an exercise is, and what its scenarios mean, is declared in its
``spec.py``; judges receive JSON data only (``wire.codec.decode``).

Judges run in the grader's judge process, which decides points and never runs student code,
and, for a student working alone (no grader), in that student's own kernel (``local``),
where the same verdicts give instant feedback.
"""
from __future__ import annotations

import importlib
from types import ModuleType

from ..wire.spec import Exercise, select  # noqa: F401  (re-exported)
from ..wire.verdict import PASS, Verdict  # noqa: F401  (re-exported)


def module(spec: Exercise) -> ModuleType:
    """The judge of ``spec`` (a declared exercise, or the Quick Checks)."""
    return importlib.import_module(spec.judge)


def verdict(judge: ModuleType, data: dict, observation: dict) -> Verdict:
    """The verdict of ``judge`` (a function exercise's module) on what a kernel observed on the
    scenario ``data``: the one way from a kernel's reported error to a verdict, for every
    exercise. The kernel writes ``{"error": <a failure>}`` when the student's function raised,
    was not callable or was not written yet (``kernel.running``); that is a failure whatever it
    claims (``Verdict.reported_failure``: a forged ``{"ok": true}`` or a message no kernel gives
    is a malformed report), so an exercise's ``verify`` only ever sees a function that ran. A
    judge whose exercise names a mistake even when the function then raised (fit_line: an
    optimizer used) decides that first, in ``before_error(data, observation)``."""
    first = getattr(judge, "before_error", None)
    decided = first(data, observation) if first else None
    if decided is not None:
        return decided
    if "error" in observation:
        return Verdict.reported_failure(observation["error"])
    return judge.verify(data, observation)
