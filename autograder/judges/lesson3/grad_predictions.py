"""Lesson 3, exercise (a): predict what ``w.grad`` holds at four moments.

The truth is what PyTorch gives when the judge runs the exercise's code itself."""
from __future__ import annotations

import numbers

import torch

from ...wire.verdict import PASS, Verdict, nested
from .. import select

W_START = 3.0
PARTS = {
    "visible": ["grad_before", "grad_after_one", "grad_after_two", "grad_after_clear"],
    "hidden": [],
}
WHY = {
    "grad_after_one": "grad_predictions.why_after_one",
    "grad_after_two": "grad_predictions.why_after_two",
    "grad_after_clear": "grad_predictions.why_after_clear",
}


def loss_of(w: torch.Tensor) -> torch.Tensor:
    """The loss the exercise uses: 2·w², so d(loss)/dw = 4·w."""
    return 2 * w ** 2


def true_values() -> dict:
    w = torch.tensor(W_START, requires_grad=True)
    values = {"grad_before": w.grad}
    loss_of(w).backward()
    values["grad_after_one"] = w.grad.item()
    loss_of(w).backward()
    values["grad_after_two"] = w.grad.item()
    w.grad = None
    loss_of(w).backward()
    values["grad_after_clear"] = w.grad.item()
    return values


def _as_number(value):
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return value.item()
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    return None


def verify_value(answers, cases: str = "visible") -> Verdict:
    truth = true_values()
    if not isinstance(answers, dict):
        return Verdict.fail("not_a_number", "grad_predictions.not_dict", got=repr(answers)[:200])
    for name in select(PARTS, cases):
        got, expected = answers.get(name, Ellipsis), truth[name]
        if got is Ellipsis:
            return Verdict.fail("unanswered", "grad_predictions.unanswered", name=name)
        if expected is None:
            if got is not None:
                return Verdict.fail("grad_not_none", "grad_predictions.none_expected", name=name)
            continue
        number = _as_number(got)
        if number is None:
            return Verdict.fail("not_a_number", "grad_predictions.not_number", name=name, got=repr(got)[:200])
        if abs(number - expected) > 1e-6:
            return Verdict.fail("wrong_prediction", "grad_predictions.wrong_value", name=name, got=repr(got)[:200],
                                why=nested(WHY[name], w=W_START))
    return PASS
