"""Lesson 2, exercise (a): ``derivative(f, x)`` returns f'(x) as a float, computed by autograd.

The judge knows each function's exact derivative. Whether autograd was used (``f``
was called on a tensor that requires grad, and a gradient flowed back through its result)
is observed in the kernel: the data cannot prove it, since a number is a number however it
was computed. A finite difference taken on a tensor that requires grad calls ``f`` the right
way but sends no gradient back.
"""
from __future__ import annotations

import torch

from ...wire.codec import decode
from ...wire.scenarios.functions import SCALAR, values
from ...wire.verdict import PASS, Verdict
from ...judges.seeds import generator

CASES = {
    "visible": [dict(seed=0, function="x³·sin(x)")],
    "hidden": [dict(seed=1, function="exp(−x²)"), dict(seed=2, function="x·tanh(x)")],
}


def scenario(spec: dict, seed: int) -> dict:
    return {"spec": dict(spec), "x": values(generator(seed), 1, 0.3, 1.6)[0]}


def verify(data: dict, observation: dict) -> Verdict:
    got = decode(observation.get("value"))
    name, x = data["spec"]["function"], data["x"]
    expected = SCALAR[name][1](x)
    if isinstance(got, torch.Tensor):
        return Verdict.fail("returns_tensor", "backward.returns_tensor", name="derivative")
    if type(got) is not float:
        return Verdict.fail("not_float", "backward.not_float", got=type(got).__name__)
    if not observation.get("calls_with_grad"):
        calls = int(observation.get("calls") or 0)
        return Verdict.fail("no_autograd", "backward.no_autograd", calls=calls, count=calls)
    if not observation.get("gradients_back"):
        return Verdict.fail("not_from_autograd", "backward.not_from_autograd")
    if not abs(got - expected) <= 1e-4 * max(1.0, abs(expected)):  # NaN is never close
        return Verdict.fail("wrong_derivative", "backward.wrong_derivative", f=name, x=x, got=got,
                            expected=expected)
    return PASS
