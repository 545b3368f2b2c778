"""The checks notebooks call: one ``check_<name>(answer, cases="visible")`` per exercise declared
in ``autograder.exercises``, and ``check_choice(question, answer)`` for Quick Checks.
Each raises ``CheckFailed`` (an ``AssertionError``) carrying the feedback.

The same function serves a visible test cell, a hidden test cell (``cases="hidden"``) and a
student's own ``exercises.<name>.check()``. A function check asks the judge for scenarios,
runs the student's function on each here, in the kernel (the exercise's observer, in
``kernel/<lesson>.py``), and sends the judge what it observed; the judge's verdict is the
check's verdict. A value check gives the answer to the judge as the judge will see it
(``wire.codec.roundtrip``); while grading, the answer was committed before the test cell
ran and the judge decides it, so here it is only recorded. The judge, in another process,
decides every point; this module only reports and explains, so nothing done to it in the
kernel can earn a point.

Nothing a correct solution does may reach stderr here: nbgrader scores a test cell with any
stderr output 0, so warnings raised while the student's code runs are recorded, never printed.
"""
from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import warnings

from .. import messages, titles
from ..exercises import ALL, CHECKS
from ..wire.spec import Exercise
from ..wire.verdict import Verdict
from . import connection, screen


class CheckFailed(AssertionError):
    """A check's verdict against the answer: its message is the feedback.

    IPython shows an exception by its ``_render_traceback_`` when it has one, so the cell
    shows the message alone, in the student's language: no "Traceback (most recent call
    last)", no frame of the grader's code and no path of its files, which once came first,
    in English, above the message. The cell still ends in an error, so nbgrader scores it
    as a failed test (an ``error`` output whose traceback is the message), and Run All goes
    on past it only where the cell's ``raises-exception`` tag allows."""

    def _render_traceback_(self) -> list:
        return screen.wrap(str(self)).splitlines() or [""]


@contextlib.contextmanager
def _quiet():
    """Keep warnings and stray stderr writes out of the test cell's output."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stderr(io.StringIO()):
            yield


def _conclude(verdict: Verdict | None, what: str, cases: str) -> None:
    __tracebackhide__ = True
    if verdict is None:
        print(screen.wrap(messages.text("general.recorded", what=what)))
    elif not verdict.ok:
        raise CheckFailed(verdict.message)
    else:
        print(screen.wrap(messages.text("general.passed", what=what, cases=messages.text(f"general.cases_{cases}"))))


def _conclude_parts(parts: list, what: str, cases: str) -> None:
    """Every part of an answer, right or not, each wrong one with its explanation; "All
    checks passed" only when every part was checked and is right."""
    __tracebackhide__ = True
    wrong = [verdict for _, verdict in parts if not verdict.ok]
    if not wrong:
        _conclude(Verdict(True), what, cases)
        return
    lines = [messages.text("general.parts_wrong", count=len(wrong), total=len(parts))]
    lines += [messages.text("general.part_right", part=part) if verdict.ok else
              messages.text("general.part_wrong", message=verdict.message) for part, verdict in parts]
    raise CheckFailed("\n".join(lines))


def _left_to_grading(spec: Exercise, answer: dict, what: str, cases: str) -> None:
    """A visible check in a course that judged some parts and left the graded ones to the judge."""
    checked = [name for name in (answer if isinstance(answer, dict) else {}) if name not in spec.graded_parts]
    print(screen.wrap(messages.text("general.passed_partly", checked=", ".join(f"`{n}`" for n in checked),
                                    cases=messages.text(f"general.cases_{cases}"),
                                    left=", ".join(f"`{n}`" for n in spec.graded_parts))))


def observer(spec: Exercise):
    """The function that runs a student's function on one scenario and reports what it did:
    ``observe(student, scenario data, name) -> observation`` (JSON data)."""
    module, function = spec.observer.rsplit(".", 1)
    return getattr(importlib.import_module(module), function)


def run_function_check(spec: Exercise, student, cases: str, what: str | None = None) -> None:
    """Ask the judge for scenarios, run ``student`` on each, report; the first failure wins."""
    __tracebackhide__ = True
    try:
        judge = connection.judge()
        issued = judge.scenarios(spec, cases)
        verdict = Verdict(True)
        observe = observer(spec)
        for token, data in issued:
            with _quiet():
                observation = observe(student, data, spec.subject)
            verdict = judge.report(token, observation)
            if not verdict.ok:
                break
    except connection.JudgeUnavailable as exc:
        verdict = Verdict.fail("judge_unavailable", "judge.unreachable", reason=str(exc)[:200])
    _conclude(verdict, what or spec.subject, cases)


def run_value_check(spec: Exercise, answer, cases: str, **options) -> Verdict | None:
    """The judge's verdict on an answer (None while grading: it is recorded; the judge decides)."""
    __tracebackhide__ = True
    with _quiet():
        verdict = connection.judge().value(spec, answer, cases, **options)
    if verdict is not None and not verdict.ok:
        raise CheckFailed(verdict.message)
    return verdict


def _make(spec: Exercise):
    """``check_<name>`` for one declared exercise, with its own name, signature and docstring."""

    options = [name for name in spec.params if name not in (spec.subject, "cases")]  # e.g. a secret key

    def check(answer, cases: str = "visible", **given) -> None:
        __tracebackhide__ = True
        unknown = set(given) - set(options)
        if unknown:
            raise TypeError(f"{spec.check}() got an unexpected keyword argument {sorted(unknown)[0]!r}")
        if spec.kind == "function":
            run_function_check(spec, answer, cases, titles.text(titles.exercise(spec)))
            return
        values = {name: given.get(name) for name in options}
        what = titles.text(titles.exercise(spec))
        with _quiet():
            parts = connection.judge().parts(spec, answer, cases, **values)
        if parts is not None:  # working alone: every part judged, and said
            _conclude_parts(parts, what, cases)
            return
        verdict = run_value_check(spec, answer, cases, **values)
        if verdict is not None and cases != "visible" and any(values.get(name) is None for name in spec.secret):
            verdict = None  # only the form was checked here: whether it is right is the judge's to say
        if verdict is not None and verdict.ok and cases == "visible" and spec.graded_parts:
            _left_to_grading(spec, answer, what, cases)
            return
        _conclude(verdict, what, cases)

    check.__name__ = check.__qualname__ = spec.check
    check.__doc__ = spec.summary
    check.__module__ = __name__
    check.__signature__ = inspect.Signature([
        inspect.Parameter(spec.subject, inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("cases", inspect.Parameter.POSITIONAL_OR_KEYWORD, default="visible")]
        + [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None) for name in options])
    return check


def check_choice(question: str, answer, key: str | None = None, cases: str = "visible") -> None:
    """A graded Quick Check answer: one of "a"–"d". While grading, the answer is recorded and
    the judge, which alone holds the key, decides it. A student working alone on the published
    variant of a generated question learns at once whether it is right, and why; in a course
    (``variants.json`` beside the notebook) the answer is only recorded."""
    __tracebackhide__ = True
    shown = _published_shown(question)
    try:
        verdict = run_value_check(CHECKS["check_choice"], answer, cases, question=question, key=key)
    except AssertionError as wrong:
        why = _why(question, shown, answer)
        if why:
            raise CheckFailed(messages.text("general.sentences", first=str(wrong), then=why)) from None
        raise
    if verdict is None or (key is None and shown is None):
        print(screen.wrap(messages.text("quiz.recorded", title=titles.text(titles.question(question)),
                                        got=str(answer).strip().lower().rstrip(")"))))
    else:
        right, why = messages.text("quiz.right", title=titles.text(titles.question(question))), _why(question, shown, answer)
        print(screen.wrap(messages.text("general.sentences", first=right, then=why) if why else right))


def _published_shown(question: str) -> dict | None:
    """The published variant a student working alone sees (None in a course, or while grading)."""
    judge = connection.judge()
    if not judge.self_study():
        return None
    shown = judge.variant(question)
    return shown if shown and shown.get("published") else None


def _why(question: str, shown: dict | None, answer) -> str:
    """The explanation of the option ``answer`` names, in the published variant."""
    letter = answer.strip().lower().rstrip(")") if isinstance(answer, str) else None
    if shown is None or letter not in LETTERS[:len(shown["order"])]:
        return ""
    option = shown["order"][LETTERS.index(letter)]
    return messages.text(f"quiz.{question}.why_{option}", **shown["params"])


LETTERS = ("a", "b", "c", "d")


for _spec in ALL:
    if _spec.check not in globals():
        globals()[_spec.check] = _make(_spec)
__all__ = sorted(spec.check for spec in ALL)
