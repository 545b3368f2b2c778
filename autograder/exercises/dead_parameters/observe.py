"""Practice exercise 3(d) in the kernel: one backward pass on the scenario's net, then the
student's ``dead_parameters`` reads its gradients; report the names it returned and what it
changed."""
from __future__ import annotations

import torch

from ...kernel import running
from ...wire.codec import encode
from .scenario import after_backward


def _state(net) -> dict:
    """Each parameter's identity, value, flag and gradient (``None`` stays ``None``)."""
    return {n: (id(p), p.detach().clone(), p.requires_grad, None if p.grad is None else p.grad.clone())
            for n, p in net.named_parameters()}


def _changed(before: dict, after: dict) -> list:
    def same(a, b):
        return (a is None and b is None) or (a is not None and b is not None and torch.equal(a, b))
    return sorted(n for n in before.keys() | after.keys()
                  if n not in before or n not in after or before[n][0] != after[n][0]
                  or not same(before[n][1], after[n][1]) or before[n][2] != after[n][2]
                  or not same(before[n][3], after[n][3]))


def observe(student, data: dict, name: str) -> dict:
    """One backward pass on the scenario's net, then the student's function reads its gradients
    (and must leave them, and the parameters, as they were)."""
    net = after_backward(data)
    before = _state(net)
    names, failed = running.call(student, name, net)
    if failed:
        return {"error": failed.to_data()}
    return {"names": encode(names), "changed": _changed(before, _state(net))}
