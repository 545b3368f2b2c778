"""For each function check, how the kernel runs the student's function on a scenario and
what it reports: ``observe(student, scenario data, name) -> observation`` (JSON data)."""
from __future__ import annotations

from . import lesson1, lesson2, lesson3, lesson4, loop


def _loop(student, data: dict, name: str) -> dict:
    return loop.observe(student, data, name)


OBSERVERS = {
    "check_freeze_body": lesson1.observe_freeze_body,
    "check_derivative": lesson2.observe_derivative,
    "check_numerical_grad": lesson2.observe_numerical_grad,
    "check_weighted_grad": lesson2.observe_weighted_grad,
    "check_train_loop": _loop,
    "check_train_accumulate": _loop,
    "check_fit_line": lesson3.observe_fit_line,
    "check_dead_parameters": lesson3.observe_dead_parameters,
    "check_predict": lesson4.observe_predict,
    "check_sgd_step": lesson4.observe_sgd_step,
    "check_evaluate": lesson4.observe_evaluate,
}
