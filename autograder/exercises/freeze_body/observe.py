"""Exercise 1(b) in the kernel: run a student's ``freeze_body`` and report what it did."""
from __future__ import annotations

import torch

from ...kernel import running
from .scenario import LR, build, loss_of


def observe(student, data: dict, name: str) -> dict:
    """Freeze with the student's function, then take one plain gradient step; report
    every parameter after it (and whether the function replaced any)."""
    net, x = build(data)
    before = dict(net.named_parameters())
    modes = {n: m.training for n, m in net.named_modules()}
    _, failed = running.call(student, name, net)
    if failed:
        return {"error": failed.to_data()}
    after = dict(net.named_parameters())
    if set(after) != set(before) or any(after[n] is not before[n] for n in before):
        return {"replaced": True}
    loss = loss_of(net, x)
    if loss.requires_grad:
        loss.backward()
    got_gradient = [n for n, p in net.named_parameters() if p.grad is not None]
    with torch.no_grad():
        for p in net.parameters():
            if p.grad is not None:
                p -= LR * p.grad
    return {"after": {n: p.detach().tolist() for n, p in net.named_parameters()}, "got_gradient": got_gradient,
            "mode_changed": sorted(n for n, m in net.named_modules() if modes.get(n) != m.training)}
