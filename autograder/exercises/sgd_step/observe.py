"""Exercise 4(b) in the kernel: run a student's ``sgd_step`` on the judge's parameters and report
them afterwards: still the same leaves, their version counters moved, the grad mode left behind."""
from __future__ import annotations

import torch

from ...kernel.inference import call


def observe(student, data: dict, name: str) -> dict:
    params = [torch.tensor(p, requires_grad=True) for p in data["params"]]
    for p, g in zip(params, data["grads"]):
        p.grad = torch.tensor(g)
    versions = [p._version for p in params]
    objects = list(params)
    _, failed, grad_mode_after = call(student, name, params, data["spec"]["lr"])
    if failed:
        return {"error": failed.to_data()}
    return {"grad_mode_after": grad_mode_after,
            "list_replaced": any(a is not b for a, b in zip(params, objects)) or len(params) != len(objects),
            "after": [p.detach().tolist() for p in params],
            "leaf": [bool(p.is_leaf and p.requires_grad) for p in params],
            "version_moved": [p._version != v for p, v in zip(params, versions)]}
