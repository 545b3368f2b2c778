"""Exercises a student can check and ask hints for, in the style of Kaggle's learntools:
``ex.check(train)`` shows the grader's diagnosis of their own code; ``ex.hint()``,
``ex.hint(2)``, … give tiered hints, each opened by the diagnosis of the student's
current answer (read from the notebook's variables), so a stuck student sees what
*their* code does, not only a generic text. Checks are the same functions the graded
test cells run, so what passes here passes there (hidden cases aside). ``ex.solution()`` shows a
model solution (``lessons.solutions``) to a student working alone who has read the last hint."""
from __future__ import annotations

import contextlib
import io
import sys

from autograder import titles
from autograder.kernel import checks, connection
from autograder.kernel.screen import wrap
from autograder.exercises import EXERCISES

from . import solutions
from .text import raw, text


def _names(*names):
    """Read the answer from the notebook: one variable, or several as a dict."""
    if len(names) == 1:
        return lambda ns: ns[names[0]]
    return lambda ns: {n: ns[n] for n in names if n in ns}


class Exercise:
    def __init__(self, name: str, check, answer=None, title: dict | None = None):
        self.name = name
        self._check = check
        self._answer = answer  # namespace → the argument the check takes
        self._title = title  # how the notebook's heading names it (autograder.titles)
        self._told = None  # the diagnosis the last hint showed
        self._last_hint_read = False  # the last tier was shown in this kernel (solution() opens)

    @property
    def title(self) -> str:
        """The exercise as the student knows it, "Exercise (b)", in the notebook's language."""
        return titles.text(self._title) if self._title else self.name

    def check(self, *args, **kwargs) -> bool:
        try:
            self._check(*args, **kwargs)
        except AssertionError as failure:
            print(wrap(text("exercise.failed", name=self.title, message=failure)))
            return False
        return True

    def diagnosis(self, namespace: dict) -> str | None:
        """What the grader says about the student's current answer, if there is one."""
        if self._answer is None:
            return None
        try:
            answer = self._answer(namespace)
        except KeyError:
            return text("exercise.not_defined")
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                self._check(answer)
        except AssertionError as failure:
            return text("exercise.diagnosis", message=failure)
        return text("exercise.already_passes")

    def hint(self, level: int = 1, namespace: dict | None = None) -> None:
        """Hint ``level``, opened by what the grader says of the student's code now, unless the
        previous hint said just that (hint(2) and hint(3) on unchanged code would repeat it)."""
        namespace = namespace if namespace is not None else sys._getframe(1).f_globals
        tiers = raw(f"hints.{self.name}")
        found = self.diagnosis(namespace)
        if found and found != self._told:
            print(wrap(found))
        self._told = found
        if str(level) not in tiers:
            print(wrap(text("exercise.no_more_hints", name=self.title)))
            return
        print(wrap(text("exercise.hint_header", level=level, total=len(tiers), name=self.title)))
        print(wrap(tiers[str(level)]))
        if level == len(tiers):
            self._last_hint_read = True

    def solution(self) -> None:
        """A model solution, for a student working alone (no course's variants beside the
        notebook: ``judges.local.LocalJudge.self_study``) who has read the last hint in this
        kernel. In a course, and while grading, it is never shown: there the hints are the last
        word. Exercises without one (``lessons.solutions``) say so."""
        if not connection.judge().self_study():
            print(wrap(text("exercise.solution_in_course", name=self.title)))
            return
        code = solutions.SOLUTIONS.get(self.name)
        if code is None:
            print(wrap(text("exercise.no_solution", name=self.title)))
            return
        if not self._last_hint_read:
            last = len(raw(f"hints.{self.name}"))
            print(wrap(text("exercise.solution_after_hints", name=self.title,
                            call=f"exercises.{self.name}.hint({last})")))
            return
        print(wrap(text("exercise.solution_header", name=self.title, why=raw(f"solution.{self.name}"))))
        print(code)


def _for(spec) -> "Exercise":
    return Exercise(spec.name, getattr(checks, spec.check), _names(*spec.answer), titles.exercise(spec))


# ``exercises.<name>`` for every exercise declared in autograder.exercises (lesson by lesson)
for _spec in EXERCISES:
    globals()[_spec.name] = _for(_spec)
__all__ = [spec.name for spec in EXERCISES]
