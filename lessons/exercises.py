"""Exercises a student can check and ask hints for, in the style of Kaggle's learntools:
``ex.check(train)`` shows the grader's diagnosis of their own code; ``ex.hint()``,
``ex.hint(2)``, … give tiered hints. Checks are the same functions the graded test
cells run, so what passes here passes there (hidden cases aside)."""
from __future__ import annotations

from autograder import checks

from .text import raw, text


class Exercise:
    def __init__(self, name: str, check):
        self.name = name
        self._check = check

    def check(self, *args, **kwargs) -> bool:
        try:
            self._check(*args, **kwargs)
        except AssertionError as failure:
            print(text("exercise.failed", name=self.name, message=failure))
            return False
        return True

    def hint(self, level: int = 1) -> None:
        tiers = raw(f"hints.{self.name}")
        if str(level) not in tiers:
            print(text("exercise.no_more_hints", name=self.name))
            return
        print(text("exercise.hint_header", level=level, total=len(tiers), name=self.name))
        print(tiers[str(level)])


# Lesson 1
graph_predict = Exercise("graph_predict", checks.check_graph_predictions)
freeze_body = Exercise("freeze_body", checks.check_freeze_body)
# Lesson 2
derivative = Exercise("derivative", checks.check_derivative)
numerical_grad = Exercise("numerical_grad", checks.check_numerical_grad)
weighted_grad = Exercise("weighted_grad", checks.check_weighted_grad)
# Lesson 3 (``predict`` there is the prediction of .grad values)
grad_predict = Exercise("predict", checks.check_grad_predictions)
train_loop = Exercise("train_loop", checks.check_train_loop)
train_accumulate = Exercise("train_accumulate", checks.check_train_accumulate)
fit_line = Exercise("fit_line", checks.check_fit_line)
# Lesson 4
predict = Exercise("inference_predict", checks.check_predict)
sgd_step = Exercise("sgd_step", checks.check_sgd_step)
evaluate = Exercise("evaluate", checks.check_evaluate)
