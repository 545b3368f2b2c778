"""Lesson 4, exercise (b): ``sgd_step(params, lr)``: ``p -= lr * p.grad`` in place, under
``no_grad``. The judge checks the new values; the kernel observes whether each tensor
is still the same leaf and whether its version counter moved (it does not when the
update goes through ``.data``, which hides it from autograd)."""
from __future__ import annotations

import torch

from .spec import SHAPES
from ...wire.tensors import close, from_data
from ...wire.verdict import PASS, Verdict
from ...judges.seeds import generator

CASES = {"visible": [dict(seed=3, lr=0.1)], "hidden": [dict(seed=4, lr=0.03)]}


def scenario(spec: dict, seed: int) -> dict:
    gen = generator(seed)
    params = [torch.randn(shape, generator=gen) for shape in SHAPES]
    grads = [torch.randn(shape, generator=gen) for shape in SHAPES]
    return {"spec": dict(spec), "params": [p.tolist() for p in params], "grads": [g.tolist() for g in grads]}


def verify(data: dict, observation: dict) -> Verdict:
    if observation.get("grad_mode_after") is not True:
        return Verdict.fail("grad_mode_left_off", "inference.grad_mode_left_off")
    if observation.get("list_replaced") is not False:
        return Verdict.fail("list_replaced", "inference.list_replaced")
    lr = data["spec"]["lr"]
    after = observation.get("after")
    if not isinstance(after, list) or len(after) != len(SHAPES):
        return Verdict.fail("malformed", "judge.malformed")
    for i, (start, grad) in enumerate(zip(data["params"], data["grads"])):
        start, grad = torch.tensor(start), torch.tensor(grad)
        got = from_data(after[i], start)
        if got is None:
            return Verdict.fail("malformed", "judge.malformed")
        if not (observation.get("leaf", [])[i:i + 1] == [True]):
            return Verdict.fail("not_leaf", "inference.not_leaf")
        if close(got, start - lr * grad):
            if observation.get("version_moved", [])[i:i + 1] != [True]:
                return Verdict.fail("used_data", "inference.used_data")
            continue
        if close(got, start):
            return Verdict.fail("unchanged", "inference.unchanged")
        return Verdict.fail("wrong_update", "inference.wrong_update", lr=lr)
    return PASS
