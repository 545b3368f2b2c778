"""Lesson 3, practice exercise (d), under Going further: ``dead_parameters(model)``: after
``loss.backward()``, the names of the parameters that received no gradient: ``.grad`` is
``None`` (not used in the forward pass) or all zeros (a dead ReLU layer blocks everything before
it, and the layer right after it gets zeros for its weights).

The scenario is a net with one hidden ReLU layer made dead (a large negative bias), or
none, and a parameter the forward pass never uses. In one hidden scenario the targets make
the head's gradients sum to zero while their entries are not zero: "no gradient" means every
entry is 0, not a sum of 0. The judge runs the same forward and
backward pass itself and compares the sets of names.
"""
from __future__ import annotations

import torch

from ...wire.codec import decode
from ...wire.exercises.dead_parameters import after_backward, make_net
from ...wire.tensors import load_
from ...wire.verdict import PASS, Verdict
from ..seeds import generator

CASES = {"visible": [dict(seed=0, dead=1)],
         "hidden": [dict(seed=1, dead=None), dict(seed=2, dead="any"), dict(seed=3, dead=None, balanced=True)]}


def scenario(spec: dict, seed: int) -> dict:
    gen = generator(seed)
    net = make_net()
    params = {name: (torch.randn(p.shape, generator=gen) * 0.5).tolist() for name, p in net.named_parameters()}
    dead = spec["dead"]
    if dead == "any":
        dead = int(torch.randint(0, 3, (1,), generator=gen))
    if dead is not None:  # every unit of this hidden layer is always off
        params[f"body.{2 * dead}.bias"] = [-50.0] * 16
    x, y = torch.randn(32, 4, generator=gen), torch.randn(32, 2, generator=gen)
    if spec.get("balanced"):  # targets off by +1 and −1: the head's gradients sum to 0 without being 0
        net = make_net()
        load_(list(net.parameters()), [torch.tensor(params[n]) for n, _ in net.named_parameters()])
        with torch.no_grad():
            y = net(x) + torch.tensor([1.0, -1.0])
    return {"spec": dict(spec), "params": params, "x": x.tolist(), "y": y.tolist()}


def truth(data: dict) -> set:
    return {name for name, p in after_backward(data).named_parameters()
            if p.grad is None or not bool(p.grad.abs().max() > 0)}


def verify(data: dict, observation: dict) -> Verdict:
    if observation.get("error"):
        return Verdict.reported_failure(observation["error"])
    changed = observation.get("changed")
    if changed:  # a second backward(), zero_grad() or a step rewrites what is to be read
        return Verdict.fail("changed_model", "debug.changed_model", names=", ".join(map(str, changed))[:200])
    got = decode(observation.get("names"))
    if not isinstance(got, (list, tuple, set)) or not all(isinstance(name, str) for name in got):
        return Verdict.fail("not_names", "debug.not_names", got=repr(got)[:200])
    expected, got = truth(data), set(got)
    unknown = sorted(got - {name for name in data["params"]})
    if unknown:
        return Verdict.fail("not_names", "debug.unknown_names", names=", ".join(unknown)[:200])
    if "aux.weight" in expected - got:
        return Verdict.fail("missed_none", "debug.missed_none", name="aux.weight")
    missed, extra = sorted(expected - got), sorted(got - expected)
    if extra:
        return Verdict.fail("extra_params", "debug.extra", names=", ".join(extra))
    if missed:
        return Verdict.fail("missed_zero", "debug.missed_zero", names=", ".join(missed))
    return PASS
