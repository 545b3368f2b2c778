"""Lesson 3, exercise (c): ``fit_line(w, b, xs, ys, lr, steps)``: gradient descent on raw
tensors, clearing ``.grad`` by hand, updating ``w`` and ``b`` in place.

The tensors arrive holding stale gradients, as in the training-loop exercise. The
judge simulates the correct loop and the two usual wrong ones (never clearing;
clearing only after the update) and compares the final ``w`` and ``b``. The points are
not centred on 0, so each step's gradient of ``w`` depends on ``b`` and the other way
round: updating one, then computing a new gradient for the other, is not one step.

Two rules the values cannot show are observed in the kernel. The update and the clearing
are by hand: an optimizer's ``step()`` or ``zero_grad()`` during the call fails, named,
whatever the values. And the update is in place under ``no_grad``, as lesson 4's
``sgd_step`` requires too: an update through ``.data`` gives the right values but leaves
the tensor's version counter where it was, so each of ``w`` and ``b`` must show at least one
in-place change per step (``w -= ...``, ``w.sub_(...)``, ``w.copy_(...)``,
``torch._foreach_add_`` each make one).
"""
from __future__ import annotations

import torch

from ...wire import codec as values
from .scenario import tensors
from ...wire.verdict import PASS, Verdict
from ...judges.seeds import generator

CASES = {
    "visible": [dict(seed=0, lr=0.1, steps=5)],
    "hidden": [dict(seed=1, lr=0.2, steps=12)],
}


def scenario(spec: dict, seed: int) -> dict:
    gen = generator(seed)
    start = [round(float(v), 3) for v in torch.rand(4, generator=gen, dtype=torch.float64) * 6 - 3]
    xs = torch.linspace(0, 2, 8)  # not centred: the gradients of w and b depend on each other
    ys = 2.0 * xs - 0.5 + 0.05 * torch.randn(8, generator=gen)
    return {"spec": dict(spec), "w": start[0] / 2, "b": start[1] / 3, "stale_w": start[2], "stale_b": start[3],
            "xs": xs.tolist(), "ys": ys.tolist()}


def simulate(data: dict, clear: str) -> tuple[float, float]:
    """Run the loop with clearing ``before`` backward, ``never``, or only ``after`` the update."""
    w, b, xs, ys = tensors(data)
    lr, steps = data["spec"]["lr"], data["spec"]["steps"]
    for _ in range(steps):
        if clear == "before":
            w.grad = b.grad = None
        loss = ((w * xs + b - ys) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        if clear == "after":
            w.grad = b.grad = None
    return w.item(), b.item()


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-4 * max(1.0, abs(b))


def before_error(data: dict, observation: dict) -> Verdict | None:
    """An optimizer's use, which this exercise is about doing without, is named even when the
    student's code then raised (it is why it raised, often)."""
    calls = observation.get("optimizer_calls")
    if calls == []:
        return None
    if not isinstance(calls, list) or not all(isinstance(call, str) for call in calls):
        return Verdict.fail("malformed", "judge.malformed")
    return Verdict.fail("used_optimizer", "manual.used_optimizer", call=calls[0][:80])


def verify(data: dict, observation: dict) -> Verdict:
    for name in ("w", "b"):
        if observation.get(f"{name}_requires_grad") is not True:
            return Verdict.fail("grad_flag", "manual.grad_flag", name=name,
                                got=observation.get(f"{name}_requires_grad"))
    got = (values.decode(observation.get("w")), values.decode(observation.get("b")))
    if not all(type(v) is float for v in got):
        return Verdict.fail("malformed", "judge.malformed")
    steps = data["spec"]["steps"]
    if _close(got[0], data["w"]) and _close(got[1], data["b"]):
        if observation.get("updated_in_place"):  # updated in place, by a gradient cleared just before
            return Verdict.fail("cleared_before_step", "manual.cleared_before_update")
        return Verdict.fail("replaced", "manual.replaced", name="w")
    right = simulate(data, "before")
    if all(_close(g, r) for g, r in zip(got, right)):
        updates = observation.get("in_place_updates")
        if not (isinstance(updates, list) and len(updates) == 2 and all(type(n) is int for n in updates)):
            return Verdict.fail("malformed", "judge.malformed")
        hidden = [name for name, n in zip("wb", updates) if n < steps]
        if hidden:  # the values moved, but autograd saw fewer in-place changes than steps
            return Verdict.fail("used_data", "manual.used_data", name=hidden[0])
        return PASS
    if all(_close(g, r) for g, r in zip(got, simulate(data, "never"))):
        return Verdict.fail("never_cleared", "manual.never_cleared", steps=steps, name="w", got=got[0])
    if all(_close(g, r) for g, r in zip(got, simulate(data, "after"))):
        return Verdict.fail("stale_first_step", "manual.stale_first")
    index = 0 if not _close(got[0], right[0]) else 1
    return Verdict.fail("wrong_values", "manual.values", steps=steps, name="wb"[index], got=got[index],
                        expected=right[index])
