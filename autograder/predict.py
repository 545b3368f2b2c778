"""Exercise (a): the student predicts what ``w.grad`` holds at four moments.

The true values come from running the same code with PyTorch, not from a table.
"""
from __future__ import annotations

import numbers

import torch

from . import messages, running
from .judge import Verdict

W_START = 3.0
PARTS = {
    "visible": ["grad_before", "grad_after_one"],
    "hidden": ["grad_after_two", "grad_after_clear"],
}
WHY = {
    "grad_after_one": "predict.why_after_one",
    "grad_after_two": "predict.why_after_two",
    "grad_after_clear": "predict.why_after_clear",
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


def judge_predictions(answers: dict, part: str = "visible") -> Verdict:
    truth = true_values()
    names = running.select(PARTS, part)
    for name in names:
        got, expected = answers.get(name, Ellipsis), truth[name]
        if got is Ellipsis:
            return Verdict.fail("unanswered", "predict.unanswered", name=name)
        if expected is None:
            if got is not None:
                return Verdict.fail("grad_not_none", "predict.none_expected", name=name)
            continue
        number = _as_number(got)
        if number is None:
            return Verdict.fail("not_a_number", "predict.not_number", name=name, got=repr(got))
        if abs(number - expected) > 1e-6:
            why = messages.text(WHY[name], w=W_START)
            return Verdict.fail("wrong_prediction", "predict.wrong_value", name=name,
                                got=repr(got), why=why)
    return Verdict(True)
