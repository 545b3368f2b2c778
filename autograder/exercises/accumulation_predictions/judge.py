"""Lesson 3, exercise (a): predict what ``.grad`` holds at four moments, twice.

The first four predictions (``w``) are checked by the visible test, against what PyTorch
gives when the judge runs the exercise's code itself, with an explanation for each that
is off: they teach. The same four moments for ``v`` (a start value and a loss of the
student's own variant, ``judges.variants``) are what the points depend on. In a course, the
visible test only checks their form (a number or None), and the hidden test compares them
with what the judge computes for that variant, so no check a student can call tells them
whether these four are right. A student working alone has the published ``v``, whose truth
is public: their visible test judges all eight, one by one (``verify_parts``)."""
from __future__ import annotations

import math
import numbers

import torch

from .spec import EXERCISE
from ...wire.verdict import PASS, Verdict, nested
from ...judges import variants

W_START = 3.0
VARIANTS = EXERCISE.variants  # the family of the graded half's variants
PARTS = {
    "visible": ["grad_before", "grad_after_one", "grad_after_two", "grad_after_clear"],
    "hidden": list(EXERCISE.graded_parts),
}
WHY = {
    "grad_after_one": "accumulation_predictions.why_after_one",
    "grad_after_two": "accumulation_predictions.why_after_two",
    "grad_after_clear": "accumulation_predictions.why_after_clear",
}


def loss_of(w: torch.Tensor) -> torch.Tensor:
    """The loss the exercise uses: 2·w², so d(loss)/dw = 4·w."""
    return 2 * w ** 2


def true_values(start: float = W_START, loss=loss_of, names=tuple(PARTS["visible"])) -> dict:
    """``.grad`` at the four moments of the exercise's code, as PyTorch gives it."""
    w = torch.tensor(start, requires_grad=True)
    values = [w.grad]
    loss(w).backward()
    values.append(w.grad.item())
    loss(w).backward()
    values.append(w.grad.item())
    w.grad = None
    loss(w).backward()
    values.append(w.grad.item())
    return dict(zip(names, values))


def _as_number(value):
    """The answer as a finite float, or None (NaN compares false with everything: as a
    "number" it would match any expected value)."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _form(answers: dict, names) -> Verdict:
    """Each of ``names`` answered, with a number or None."""
    for name in names:
        got = answers.get(name, Ellipsis)
        if got is Ellipsis:
            return Verdict.fail("unanswered", "accumulation_predictions.unanswered", name=name)
        if got is not None and _as_number(got) is None:
            return Verdict.fail("not_a_number", "accumulation_predictions.not_number", name=name, got=repr(got)[:200])
    return PASS


def _one(name: str, got, expected, wrong) -> Verdict:
    """One prediction against what PyTorch gives (``got`` is Ellipsis when unanswered)."""
    if got is Ellipsis:
        return Verdict.fail("unanswered", "accumulation_predictions.unanswered", name=name)
    if expected is None:
        if got is not None:
            return Verdict.fail("grad_not_none", "accumulation_predictions.none_expected", name=name)
        return PASS
    number = _as_number(got)
    if number is None:
        return Verdict.fail("not_a_number", "accumulation_predictions.not_number", name=name, got=repr(got)[:200])
    if not abs(number - expected) <= 1e-6:
        return wrong(name, got)
    return PASS


def _compare(answers: dict, truth: dict, wrong) -> Verdict:
    for name, expected in truth.items():
        verdict = _one(name, answers.get(name, Ellipsis), expected, wrong)
        if not verdict.ok:
            return verdict
    return PASS


def _wrong_w(name: str, got) -> Verdict:
    return Verdict.fail("wrong_prediction", "accumulation_predictions.wrong_value", name=name, got=repr(got)[:200],
                        why=nested(WHY[name], w=W_START))


def _wrong_v(name: str, got) -> Verdict:
    return Verdict.fail("wrong_prediction", "accumulation_predictions.wrong_other", name=name, got=repr(got)[:200])


def v_truth(variant: dict | None) -> dict:
    """``.grad`` of ``v`` at the four moments of the student's variant (the published one
    without): the judge runs that code's loss itself."""
    params = (variant or variants.variant(VARIANTS, None).shown())["params"]
    c = params["c"]
    return true_values(float(params["v0"]), lambda v: c * v ** 2, tuple(PARTS["hidden"]))


def verify_value(answers, cases: str = "visible", variant: dict | None = None) -> Verdict:
    """``variant``: what the student was shown of their own ``v``, which the judge draws while
    grading; without one (a student calling the hidden check in their own kernel) only the
    form of the v answers is checked."""
    if not isinstance(answers, dict):
        return Verdict.fail("not_a_number", "accumulation_predictions.not_dict", got=repr(answers)[:200])
    if cases in ("visible", "all"):
        verdict = _compare(answers, true_values(), _wrong_w)
        if not verdict.ok:
            return verdict
    if cases not in ("visible", "hidden", "all"):
        raise ValueError(f"cases must be 'visible', 'hidden' or 'all', not {cases!r}")
    verdict = _form(answers, PARTS["hidden"])
    if not verdict.ok or cases == "visible" or variant is None:
        return verdict
    return _compare(answers, v_truth(variant), _wrong_v)


def verify_parts(answers, variant: dict | None = None) -> list:
    """All eight predictions judged one by one: [(name, verdict)]. For a student working alone,
    whose ``v`` is the published one (its truth is what running the code shows), so they learn
    which of their predictions are right, each with the explanation feedback would give."""
    if not isinstance(answers, dict):
        return [("", Verdict.fail("not_a_number", "accumulation_predictions.not_dict", got=repr(answers)[:200]))]
    truths = [(true_values(), _wrong_w), (v_truth(variant), _wrong_v)]
    return [(name, _one(name, answers.get(name, Ellipsis), expected, wrong))
            for truth, wrong in truths for name, expected in truth.items()]
