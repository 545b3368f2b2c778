"""Exercises a student can check and ask hints for, in the style of Kaggle's learntools:
``ex.check(train)`` shows the grader's diagnosis of their own code; ``ex.hint()``,
``ex.hint(2)``, … give tiered hints, each opened by the diagnosis of the student's
current answer (read from the notebook's variables), so a stuck student sees what
*their* code does, not only a generic text. Checks are the same functions the graded
test cells run, so what passes here passes there (hidden cases aside)."""
from __future__ import annotations

import contextlib
import io
import sys

from autograder.kernel import checks

from .text import raw, text


def _names(*names):
    """Read the answer from the notebook: one variable, or several as a dict."""
    if len(names) == 1:
        return lambda ns: ns[names[0]]
    return lambda ns: {n: ns[n] for n in names if n in ns}


class Exercise:
    def __init__(self, name: str, check, answer=None):
        self.name = name
        self._check = check
        self._answer = answer  # namespace → the argument the check takes

    def check(self, *args, **kwargs) -> bool:
        try:
            self._check(*args, **kwargs)
        except AssertionError as failure:
            print(text("exercise.failed", name=self.name, message=failure))
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
        namespace = namespace if namespace is not None else sys._getframe(1).f_globals
        tiers = raw(f"hints.{self.name}")
        found = self.diagnosis(namespace)
        if found:
            print(found)
        if str(level) not in tiers:
            print(text("exercise.no_more_hints", name=self.name))
            return
        print(text("exercise.hint_header", level=level, total=len(tiers), name=self.name))
        print(tiers[str(level)])


# Lesson 1
graph_predict = Exercise("graph_predict", checks.check_graph_predictions, _names("predictions"))
freeze_body = Exercise("freeze_body", checks.check_freeze_body, _names("freeze_body"))
# Lesson 2
derivative = Exercise("derivative", checks.check_derivative, _names("derivative"))
numerical_grad = Exercise("numerical_grad", checks.check_numerical_grad, _names("numerical_grad"))
weighted_grad = Exercise("weighted_grad", checks.check_weighted_grad, _names("weighted_grad"))
# Lesson 3: exercise (a) predicts the values of .grad (its hints are ``hints.grad_predictions``)
grad_predict = Exercise("grad_predictions", checks.check_grad_predictions,
                        _names("grad_before", "grad_after_one", "grad_after_two",
                               "grad_after_clear"))
train_loop = Exercise("train_loop", checks.check_train_loop, _names("train"))
train_accumulate = Exercise("train_accumulate", checks.check_train_accumulate,
                            _names("train_accumulate"))
fit_line = Exercise("fit_line", checks.check_fit_line, _names("fit_line"))
dead_parameters = Exercise("dead_parameters", checks.check_dead_parameters, _names("dead_parameters"))
# Lesson 4
predict = Exercise("inference_predict", checks.check_predict, _names("predict"))
sgd_step = Exercise("sgd_step", checks.check_sgd_step, _names("sgd_step"))
evaluate = Exercise("evaluate", checks.check_evaluate, _names("evaluate"))
