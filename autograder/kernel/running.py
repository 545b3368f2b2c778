"""Running a student's function under the grader: call it without letting its errors or
warnings escape."""
from __future__ import annotations

import warnings

from ..wire.verdict import Verdict
from . import errors, locations


class NotCallable(Exception):
    pass


def attempt(student, *args):
    """Call the student's function: (result, None) or (None, the exception it raised)."""
    if not callable(student):
        return None, NotCallable()
    try:
        with warnings.catch_warnings(record=True):  # the student's warnings are not ours to print
            warnings.simplefilter("always")
            return student(*args), None
    except Exception as exc:  # the student's error is what we explain
        return None, exc


def error_verdict(exc: BaseException, name: str) -> Verdict:
    """What went wrong when the student's function raised ``exc``."""
    if isinstance(exc, NotCallable):
        return Verdict.fail("not_callable", "loop.not_callable", name=name)
    if isinstance(exc, NotImplementedError):
        return Verdict.fail("not_implemented", "loop.not_implemented", name=name)
    return errors.verdict_for(exc, locations.of_exception(exc))


def call(student, name: str, *args):
    """Call the student's function: (result, None), or (None, the verdict on its error)."""
    result, exc = attempt(student, *args)
    return (result, None) if exc is None else (None, error_verdict(exc, name))
