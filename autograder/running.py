"""Running a student's function under the grader: call it without letting its errors or
warnings escape, and judge it case after case until one fails."""
from __future__ import annotations

import warnings

from . import errors, locations
from .judge import Verdict


def call(student, name: str, *args):
    """Call the student's function: (result, None), or (None, the verdict for its error)."""
    try:
        with warnings.catch_warnings(record=True):  # the student's warnings are not ours to print
            warnings.simplefilter("always")
            return student(*args), None
    except Exception as exc:  # the student's error is what we explain
        if isinstance(exc, NotImplementedError):
            return None, Verdict.fail("not_implemented", "loop.not_implemented", name=name)
        return None, errors.verdict_for(exc, locations.of_exception(exc))


def select(table: dict, cases: str) -> list:
    """The cases of a table for ``visible``, ``hidden`` or ``all``."""
    return table["visible"] + table["hidden"] if cases == "all" else table[cases]


def each_case(student, name: str, table: dict, cases: str, judge_one) -> Verdict:
    """Judge ``student`` on every selected case; the first failure is the verdict."""
    if not callable(student):
        return Verdict.fail("not_callable", "loop.not_callable", name=name)
    for case in select(table, cases):
        verdict = judge_one(student, case)
        if not verdict.ok:
            return verdict
    return Verdict(True)
