"""Lesson 2, exercise (c): ``weighted_grad(f, x, v)``: backward() on a non-scalar output
with ``gradient=v``, i.e. the vector-Jacobian product vᵀ·∂f/∂x. The judge computes it
with ``torch.autograd.grad(..., grad_outputs=v)``.

The product the other way round, J·v (``jacobian(f, x) @ v``, or a forward-mode
``torch.func.jvp``), equals vᵀJ when the Jacobian is symmetric, as it is for every
elementwise f such as x². So a visible case and a hidden one have a Jacobian that is not
(``_functions.TO_VECTOR``), drawn again until the two products differ visibly, and an
answer equal to J·v gets a message of its own."""
from __future__ import annotations

import torch

from ...wire.codec import decode
from ...wire.scenarios.functions import TO_VECTOR, values
from ...wire.verdict import PASS, Verdict
from ...judges.seeds import generator

CASES = {
    "visible": [dict(seed=0, function="x²"), dict(seed=3, function="x·sum(x)")],
    "hidden": [dict(seed=1, function="sin(x)·x"), dict(seed=2, function="cumsum(x)")],
}

_DRAWS = 50  # x and v are drawn again until J·v is visibly not vᵀJ (where J is not symmetric)
_VISIBLE_GAP = 0.1


def scenario(spec: dict, seed: int) -> dict:
    gen = generator(seed)
    f, n = TO_VECTOR[spec["function"]]
    for _ in range(_DRAWS):
        data = {"spec": dict(spec), "x": values(gen, n, -2.0, 2.0), "v": values(gen, n, -2.0, 3.0)}
        jacobian = _jacobian(f, data["x"])
        if torch.allclose(jacobian, jacobian.T):
            break
        v = torch.tensor(data["v"])
        if (jacobian @ v - v @ jacobian).abs().max() > _VISIBLE_GAP:
            break
    return data


def _vjp(f, xs: list, v: torch.Tensor) -> torch.Tensor:
    x = torch.tensor(xs, requires_grad=True)
    (grad,) = torch.autograd.grad(f(x), x, grad_outputs=v)
    return grad


def _jacobian(f, xs: list) -> torch.Tensor:
    return torch.autograd.functional.jacobian(f, torch.tensor(xs))


def verify(data: dict, observation: dict) -> Verdict:
    name = data["spec"]["function"]
    f = TO_VECTOR[name][0]
    v = torch.tensor(data["v"])
    expected = _vjp(f, data["x"], v)
    got = decode(observation.get("value"))
    if not isinstance(got, torch.Tensor) or got.shape != expected.shape:
        shape = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
        return Verdict.fail("shape", "backward.shape", got=str(shape), expected=str(tuple(expected.shape)))
    got = got.detach().to(torch.float32)
    if torch.allclose(got, expected, rtol=1e-5, atol=1e-6):
        return PASS
    if torch.allclose(got, _jacobian(f, data["x"]) @ v, rtol=1e-5, atol=1e-6):
        return Verdict.fail("transposed", "backward.transposed", f=name,
                            got=str([round(g, 5) for g in got.tolist()]),
                            expected=str([round(e, 5) for e in expected.tolist()]))
    if torch.allclose(got, _vjp(f, data["x"], torch.ones_like(v)), rtol=1e-5, atol=1e-6):
        return Verdict.fail("ones_weights", "backward.ones_weights")
    return Verdict.fail("wrong_weighted", "backward.wrong_weighted", f=name,
                        got=str([round(g, 5) for g in got.tolist()]),
                        expected=str([round(e, 5) for e in expected.tolist()]))
