"""Exercise 3(c) in the kernel: run a student's ``fit_line`` on the judge's tensors and report
them afterwards, and the optimizer calls made during the call."""
from __future__ import annotations

import contextlib

import torch
from torch.optim.optimizer import register_optimizer_step_pre_hook

from ...kernel import running
from ...wire.codec import encode
from ...wire.verdict import Verdict
from .scenario import tensors


def _rebound(exc: BaseException, student, given: dict) -> str | None:
    """The name (``w`` or ``b``) the student's function had rebound to a tensor that is not
    the one it was given, in its frame when ``exc`` was raised, if any."""
    code = getattr(student, "__code__", None)
    tb, frame = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code is code:
            frame = tb.tb_frame
        tb = tb.tb_next
    if frame is None:
        return None
    return next((n for n, t in given.items() if n in frame.f_locals and frame.f_locals[n] is not t), None)


def observe(student, data: dict, name: str) -> dict:
    """Run the student's loop on the judge's tensors; report them afterwards, how many in-place
    changes autograd saw on each (its version counter: an update through ``.data`` adds none),
    and the optimizer calls made during the call (``optimizer_calls``): the exercise is the
    update and the clearing without one, wherever one was made."""
    w, b, xs, ys = tensors(data)
    spec = data["spec"]
    versions = (w._version, b._version)
    with optimizer_calls() as calls:
        _, exc = running.attempt(student, w, b, xs, ys, spec["lr"], spec["steps"])
    return {**_result(exc, student, name, w, b, versions), "optimizer_calls": calls[:5]}


@contextlib.contextmanager
def optimizer_calls():
    """Note each ``step()`` and ``zero_grad()`` of any optimizer inside the block ("SGD.step()"):
    steps through PyTorch's global step hook, clearing through ``Optimizer.zero_grad``, which
    no optimizer of torch.optim overrides (2.x), wrapped for the block only."""
    calls = []
    hook = register_optimizer_step_pre_hook(lambda optimizer, args, kwargs: calls.append(
        f"{type(optimizer).__name__[:60]}.step()"))
    original = torch.optim.Optimizer.zero_grad

    def zero_grad(self, *args, **kwargs):
        calls.append(f"{type(self).__name__[:60]}.zero_grad()")
        return original(self, *args, **kwargs)

    torch.optim.Optimizer.zero_grad = zero_grad
    try:
        yield calls
    finally:
        torch.optim.Optimizer.zero_grad = original
        hook.remove()


def _result(exc, student, name: str, w, b, versions: tuple) -> dict:
    """What the call left behind: the error it raised, explained, or ``w`` and ``b``."""
    if isinstance(exc, TypeError) and "NoneType" in str(exc):
        rebound = _rebound(exc, student, {"w": w, "b": b})
        if rebound:
            # `w = w - lr * w.grad` outside no_grad: the new w is not a leaf, so on the next
            # step its .grad is None and the arithmetic fails
            return {"error": Verdict.fail("not_leaf", "manual.not_leaf", name=rebound).to_data()}
        if w.grad is None or b.grad is None:  # cleared between backward() and the update
            return {"error": Verdict.fail("cleared_before_step", "manual.cleared_before_update").to_data()}
    if exc is not None:
        return {"error": running.error_verdict(exc, name).to_data()}
    return {"w": encode(w.item()), "b": encode(b.item()),
            "w_requires_grad": bool(w.requires_grad), "b_requires_grad": bool(b.requires_grad),
            "updated_in_place": (w._version, b._version) != versions,
            "in_place_updates": [w._version - versions[0], b._version - versions[1]]}
