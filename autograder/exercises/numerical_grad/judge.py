"""Lesson 2, exercise (b): ``numerical_grad(f, x, eps)``, the central-difference gradient.

The judge computes the central differences itself (and the forward differences, to
name that mistake). That the student's function left ``x`` unchanged and did not call
autograd is observed in the kernel.
"""
from __future__ import annotations

import torch

from ...wire.codec import decode
from ...wire.scenarios.functions import TO_SCALAR, values
from ...wire.verdict import PASS, Verdict
from ...judges.seeds import generator

EPS = 1e-6
CASES = {
    # a step as large as 0.01 makes the central difference differ visibly from the exact
    # gradient: a function that ignores its eps is caught there
    "visible": [dict(seed=3, function="sum(exp(3x))", eps=1e-2), dict(seed=0, function="sum(exp(3x))")],
    "hidden": [dict(seed=1, function="sum(x²·sin(x))"), dict(seed=2, function="x₀·x₁ + x₁³", eps=1e-2)],
}


def scenario(spec: dict, seed: int) -> dict:
    n = TO_SCALAR[spec["function"]][1]
    return {"spec": dict(spec), "x": values(generator(seed), n), "eps": spec.get("eps", EPS)}


def exact(f, x: torch.Tensor) -> torch.Tensor:
    x = x.clone().requires_grad_(True)
    f(x).backward()
    return x.grad


def reference_numerical(f, x: torch.Tensor, eps: float, kind: str = "central") -> torch.Tensor:
    grad = torch.zeros_like(x)
    for i in range(x.numel()):
        step = torch.zeros_like(x)
        step.view(-1)[i] = eps
        if kind == "central":
            grad.view(-1)[i] = (f(x + step) - f(x - step)) / (2 * eps)
        else:
            grad.view(-1)[i] = (f(x + step) - f(x)) / eps
    return grad


def verify(data: dict, observation: dict) -> Verdict:
    if observation.get("changed_input"):
        if observation.get("input_rounded"):
            return Verdict.fail("input_rounded", "backward.input_rounded")
        return Verdict.fail("changed_input", "backward.changed_input")
    if observation.get("calls_with_grad"):
        return Verdict.fail("used_autograd", "backward.used_autograd")
    f = TO_SCALAR[data["spec"]["function"]][0]
    x = torch.tensor(data["x"], dtype=torch.float64)
    got = decode(observation.get("value"))
    if not isinstance(got, torch.Tensor) or got.shape != x.shape:
        shape = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
        return Verdict.fail("shape", "backward.shape", got=str(shape), expected=str(tuple(x.shape)))
    got = got.detach().to(torch.float64)
    eps = data["eps"]
    expected = reference_numerical(f, x, eps)
    if torch.allclose(got, expected, rtol=1e-6, atol=1e-8):
        return PASS
    if torch.allclose(got, reference_numerical(f, x, eps, "forward"), rtol=1e-6, atol=1e-8):
        return Verdict.fail("forward_difference", "backward.forward_difference")
    truth = exact(f, x)
    if (got - truth).abs().max() < (expected - truth).abs().max() / 10:
        return Verdict.fail("ignored_eps", "backward.ignored_eps", eps=eps)
    for factor in (2.0, 0.5):
        if torch.allclose(got, factor * expected, rtol=1e-5, atol=1e-8):
            return Verdict.fail("divisor", "backward.divisor", factor=factor)
    return Verdict.fail("wrong_numerical", "backward.wrong_numerical", f=data["spec"]["function"],
                        got=str([round(v, 6) for v in got.tolist()]),
                        expected=str([round(v, 6) for v in expected.tolist()]))
