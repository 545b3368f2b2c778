"""Lesson 3, practice exercise (d), under Going further: ``dead_parameters(model)``: after
``loss.backward()``, the names of the parameters that received no gradient: ``.grad`` is
``None`` (not used in the forward pass) or all zeros (a dead ReLU layer blocks everything before
it, and the layer right after it gets zeros for its weights).

The scenario is a net with one hidden ReLU layer made dead (a large negative bias), or
none, and a parameter the forward pass never uses. Two kinds of scenario, visible and hidden,
tell "no gradient" (every entry exactly 0) from what a test of an aggregate or a tolerance
takes for it:

* balanced: the targets are off by +1 and −1, so the entries of the head's gradients sum to
  exactly 0 (``_on_grid``) while they are not all 0: ``p.grad.sum() == 0`` or
  ``p.grad.mean() == 0`` lists them;
* tiny: the head's weights are 1e-9 times the usual, so every gradient that flows back
  through them is 1e-16 to 1e-8 (measured over seeds 0–99), yet not 0:
  ``p.grad.norm() < 1e-3``, ``torch.allclose(p.grad, torch.zeros_like(p.grad))`` (whose
  tolerance is 1e-8) and the like list them. A small gradient is still a gradient: exact
  zeros come from a dead ReLU, whose derivative is exactly 0, or from a parameter never used.

The judge runs the same forward and backward pass itself and compares the sets of names;
extra names that are all zero-sum, or all tiny, get the message that names that mistake.
"""
from __future__ import annotations

import torch

from ...wire.codec import decode
from .scenario import after_backward, make_net
from ...wire.tensors import load_
from ...wire.verdict import PASS, Verdict
from ...judges.seeds import generator

CASES = {"visible": [dict(seed=0, dead=1), dict(seed=7, dead=0, balanced=True), dict(seed=8, dead=None, tiny=True)],
         "hidden": [dict(seed=1, dead=None), dict(seed=2, dead="any"), dict(seed=3, dead=None, balanced=True),
                    dict(seed=9, dead="any", tiny=True)]}

TINY_SCALE = 1e-9  # the head's weights in a tiny scenario, times their usual size
TINY = 1e-4  # a gradient this many times smaller than the model's largest one counts as tiny


def scenario(spec: dict, seed: int) -> dict:
    gen = generator(seed)
    net = make_net()
    params = {name: (torch.randn(p.shape, generator=gen) * 0.5).tolist() for name, p in net.named_parameters()}
    dead = spec["dead"]
    if dead == "any":
        dead = int(torch.randint(0, 3, (1,), generator=gen))
    if dead is not None:  # every unit of this hidden layer is always off
        params[f"body.{2 * dead}.bias"] = [-50.0] * 16
    if spec.get("tiny"):  # whatever flows back through the head is scaled down with it
        params["head.weight"] = (torch.tensor(params["head.weight"]) * TINY_SCALE).tolist()
    x, y = torch.randn(32, 4, generator=gen), torch.randn(32, 2, generator=gen)
    if spec.get("balanced"):  # targets off by +1 and −1: the head's gradients sum to 0 without being 0
        params = {name: _on_grid(torch.tensor(value)).tolist() for name, value in params.items()}
        x = _on_grid(x)
        net = make_net()
        load_(list(net.parameters()), [torch.tensor(params[n]) for n, _ in net.named_parameters()])
        with torch.no_grad():
            y = net(x) + torch.tensor([1.0, -1.0])
    return {"spec": dict(spec), "params": params, "x": x.tolist(), "y": y.tolist()}


def _on_grid(t: torch.Tensor) -> torch.Tensor:
    """``t`` rounded to quarters. With the inputs and parameters on this grid, every value of
    the forward and backward pass is a float32 sum computed exactly (a few layers of products
    of quarters), so the outputs plus and minus 1 are exact and so are the gradients: the
    head's entries sum to exactly 0 in any order. (Drawn freely, the rounding of ``out + 1``
    left a head bias's gradient of [−1, 1] summing to about 1e-7 in a fifth of the seeds.)"""
    return torch.round(t * 4) / 4


def truth(data: dict) -> set:
    return {name for name, p in after_backward(data).named_parameters()
            if p.grad is None or not bool(p.grad.abs().max() > 0)}


def look_dead(data: dict) -> tuple[set, set]:
    """The parameters whose gradient is not 0 but looks it to an aggregate or a tolerance:
    (entries summing to 0, up to rounding; entries all tiny next to the largest gradient)."""
    grads = {name: p.grad for name, p in after_backward(data).named_parameters()
             if p.grad is not None and bool(p.grad.abs().max() > 0)}
    largest = max(float(g.abs().max()) for g in grads.values())
    zero_sum = {n for n, g in grads.items() if float(g.double().sum().abs()) <= 1e-5 * float(g.double().abs().sum())}
    tiny = {n for n, g in grads.items() if float(g.abs().max()) <= TINY * largest}
    return zero_sum, tiny


def verify(data: dict, observation: dict) -> Verdict:
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
        zero_sum, tiny = look_dead(data)
        if set(extra) <= zero_sum:
            return Verdict.fail("sums_to_zero", "debug.sums_to_zero", names=", ".join(extra))
        if set(extra) <= tiny:
            return Verdict.fail("tiny_gradient", "debug.tiny", names=", ".join(extra)[:200])
        return Verdict.fail("extra_params", "debug.extra", names=", ".join(extra))
    if missed:
        return Verdict.fail("missed_zero", "debug.missed_zero", names=", ".join(missed))
    return PASS
