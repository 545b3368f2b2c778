"""Lesson 1, exercise (b): ``freeze_body(model)`` freezes the body, keeps the head trainable.

The kernel rebuilds the net from the scenario, calls the student's function on it,
then takes one plain gradient step, ``p -= lr * p.grad`` for every parameter that
received a gradient, on the scenario's batch. The judge takes the same step with only
the head's parameters and compares: a body parameter that moved, or that received a
gradient at all (a hook that zeroes it still leaves a ``.grad`` that momentum, Adam or
weight decay would follow), was not frozen; a head parameter that did not move was frozen
by mistake.
"""
from __future__ import annotations

import torch

from .scenario import LR, build, loss_of, make_net
from ...wire.tensors import close, from_data
from ...wire.verdict import PASS, Verdict
from ...judges.seeds import generator

CASES = {"visible": [dict(seed=0, kind="mlp")], "hidden": [dict(seed=1, kind="batchnorm")]}


def scenario(spec: dict, seed: int) -> dict:
    gen = generator(seed)
    net = make_net(spec["kind"])
    params = {name: (torch.randn(p.shape, generator=gen) * 0.5).tolist() for name, p in net.named_parameters()}
    return {"spec": dict(spec), "params": params, "x": torch.randn(16, 4, generator=gen).tolist()}


def expected_after(data: dict) -> dict:
    """Every parameter after one step in which only the head learns."""
    net, x = build(data)
    head = [p for name, p in net.named_parameters() if not name.startswith("body.")]
    grads = torch.autograd.grad(loss_of(net, x), head)
    with torch.no_grad():
        for p, g in zip(head, grads):
            p -= LR * g
    return {name: p.detach() for name, p in net.named_parameters()}


def verify(data: dict, observation: dict) -> Verdict:
    if observation.get("replaced"):
        return Verdict.fail("replaced", "graph.replaced")
    after = observation.get("after")
    expected = expected_after(data)
    if not isinstance(after, dict) or set(after) != set(expected):
        return Verdict.fail("malformed", "judge.malformed")
    got_gradient = observation.get("got_gradient") or []
    for name in expected:  # a gradient of zeros still moves a parameter under momentum or Adam
        if name.startswith("body.") and name in got_gradient:
            return Verdict.fail("body_trains", "graph.body_trains", name=f"model.{name}")
    start = {name: torch.tensor(values) for name, values in data["params"].items()}
    for name, want in expected.items():
        got = from_data(after[name], want)
        if got is None:
            return Verdict.fail("malformed", "judge.malformed")
        if close(got, want):
            continue
        if name.startswith("body."):
            return Verdict.fail("body_trains", "graph.body_trains", name=f"model.{name}")
        if close(got, start[name]):
            return Verdict.fail("head_frozen", "graph.head_frozen", name=f"model.{name}")
        changed = observation.get("mode_changed")
        if changed:  # e.g. model.body.eval(): batch norm then normalises with its running statistics
            return Verdict.fail("mode_changed", "graph.mode_changed", name=f"model.{name}",
                                module=f"model.{changed[0]}" if changed[0] else "model")
        return Verdict.fail("wrong_step", "judge.freeze_wrong_step", name=f"model.{name}")
    return PASS
