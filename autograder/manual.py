"""Exercise (d): gradient descent on raw tensors, clearing ``.grad`` without an optimizer.

The student's ``fit_line(w, b, xs, ys, lr, steps)`` must update ``w`` and ``b`` in
place. Its result is compared with three simulations run here with PyTorch: the
correct loop, a loop that never clears, and one that clears only after updating.
The tensors arrive holding stale gradients, as in the training-loop exercise.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from . import running
from .judge import Verdict


@dataclass(frozen=True)
class LineCase:
    w: float
    b: float
    stale_w: float
    stale_b: float
    lr: float
    steps: int
    seed: int

    def data(self):
        gen = torch.Generator().manual_seed(self.seed)
        xs = torch.linspace(-1, 1, 8)
        ys = 2.0 * xs - 0.5 + 0.05 * torch.randn(8, generator=gen)
        return xs, ys

    def tensors(self):
        w = torch.tensor(self.w, requires_grad=True)
        b = torch.tensor(self.b, requires_grad=True)
        w.grad, b.grad = torch.tensor(self.stale_w), torch.tensor(self.stale_b)
        return w, b


CASES = {
    "visible": [LineCase(0.5, -0.2, 3.0, -1.0, lr=0.1, steps=5, seed=0)],
    "hidden": [LineCase(-1.0, 0.7, -2.0, 4.0, lr=0.2, steps=12, seed=1)],
}


def simulate(case: LineCase, clear: str) -> tuple[float, float]:
    """Run the loop with clearing ``before`` backward, ``never``, or only ``after`` the update."""
    w, b = case.tensors()
    xs, ys = case.data()
    for _ in range(case.steps):
        if clear == "before":
            w.grad = b.grad = None
        loss = ((w * xs + b - ys) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= case.lr * w.grad
            b -= case.lr * b.grad
        if clear == "after":
            w.grad = b.grad = None
    return w.item(), b.item()


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-4 * max(1.0, abs(b))


def _judge_case(fit_line, case: LineCase) -> Verdict:
    w, b = case.tensors()
    xs, ys = case.data()
    _, failed = running.call(fit_line, "fit_line", w, b, xs, ys, case.lr, case.steps)
    if failed:
        if failed.mistake == "crashed" and "TypeError" in failed.message and "NoneType" in failed.message:
            return Verdict.fail("not_leaf", "manual.not_leaf", name="w")
        return failed
    for name, t in (("w", w), ("b", b)):
        if not t.requires_grad:
            return Verdict.fail("grad_flag", "manual.grad_flag", name=name, got=t.requires_grad)
    got = (w.item(), b.item())
    if _close(got[0], case.w) and _close(got[1], case.b):
        return Verdict.fail("replaced", "manual.replaced", name="w")
    right = simulate(case, "before")
    if all(_close(g, r) for g, r in zip(got, right)):
        return Verdict(True)
    if all(_close(g, r) for g, r in zip(got, simulate(case, "never"))):
        return Verdict.fail("never_cleared", "manual.never_cleared", steps=case.steps, name="w",
                            got=got[0])
    if all(_close(g, r) for g, r in zip(got, simulate(case, "after"))):
        return Verdict.fail("stale_first_step", "manual.stale_first")
    index = 0 if not _close(got[0], right[0]) else 1
    return Verdict.fail("wrong_values", "manual.values", steps=case.steps, name="wb"[index],
                        got=got[index], expected=right[index])


def judge_fit_line(fit_line, cases: str = "visible") -> Verdict:
    return running.each_case(fit_line, "fit_line", CASES, cases, _judge_case)
