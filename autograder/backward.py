"""Lesson 2 judges: derivatives with autograd, a finite-difference checker, and
backward() on a non-scalar output with the right ``gradient=``.

The grader's functions count how the student's code calls them, so "used autograd"
and "used finite differences" are judged by what happened, not by the code's text.
"""
from __future__ import annotations

import math

import torch

from . import running
from .judge import Verdict


class Watched:
    """A function of a tensor that records how it was called."""

    def __init__(self, name: str, fn):
        self.name, self.fn = name, fn
        self.calls = 0
        self.calls_with_grad = 0

    def __call__(self, x):
        self.calls += 1
        if isinstance(x, torch.Tensor) and x.requires_grad:
            self.calls_with_grad += 1
        return self.fn(x)


# -- (a) derivative via autograd -----------------------------------------------------------
DERIVATIVE_CASES = {
    "visible": [("x³·sin(x)", lambda x: x ** 3 * torch.sin(x),
                 lambda x: 3 * x ** 2 * math.sin(x) + x ** 3 * math.cos(x), 1.3)],
    "hidden": [("exp(−x²)", lambda x: torch.exp(-x ** 2), lambda x: -2 * x * math.exp(-x ** 2), 0.7),
               ("x·tanh(x)", lambda x: x * torch.tanh(x),
                lambda x: math.tanh(x) + x * (1 - math.tanh(x) ** 2), -0.4)],
}


def _judge_derivative(derivative, case) -> Verdict:
    name, f, df, x = case
    watched = Watched(name, f)
    got, failed = running.call(derivative, "derivative", watched, x)
    if failed:
        return failed
    if isinstance(got, torch.Tensor):
        return Verdict.fail("returns_tensor", "backward.returns_tensor", name="derivative")
    if not isinstance(got, float):
        return Verdict.fail("not_float", "backward.not_float", got=type(got).__name__)
    if watched.calls_with_grad == 0:
        return Verdict.fail("no_autograd", "backward.no_autograd", calls=watched.calls)
    if abs(got - df(x)) > 1e-4 * max(1.0, abs(df(x))):
        return Verdict.fail("wrong_derivative", "backward.wrong_derivative", f=name, x=x,
                            got=got, expected=df(x))
    return Verdict(True)


def judge_derivative(derivative, cases: str = "visible") -> Verdict:
    return running.each_case(derivative, "derivative", DERIVATIVE_CASES, cases, _judge_derivative)


# -- (b) a finite-difference gradient checker ----------------------------------------------
NUMERICAL_CASES = {
    "visible": [("sum(exp(3x))", lambda x: torch.exp(3 * x).sum(), [0.1, -0.4, 0.8])],
    "hidden": [("sum(x²·sin(x))", lambda x: (x ** 2 * torch.sin(x)).sum(), [1.0, 2.0, -0.5, 0.3]),
               ("x₀·x₁ + x₁³", lambda x: x[0] * x[1] + x[1] ** 3, [1.5, -2.0])],
}


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


def _judge_numerical(numerical_grad, case, eps: float = 1e-6) -> Verdict:
    name, f, values = case
    x = torch.tensor(values, dtype=torch.float64)
    original = x.clone()
    watched = Watched(name, f)
    got, failed = running.call(numerical_grad, "numerical_grad", watched, x, eps)
    if failed:
        return failed
    if not torch.equal(x, original):
        return Verdict.fail("changed_input", "backward.changed_input")
    if watched.calls_with_grad:
        return Verdict.fail("used_autograd", "backward.used_autograd")
    if not isinstance(got, torch.Tensor) or got.shape != x.shape:
        shape = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
        return Verdict.fail("shape", "backward.shape", got=shape, expected=tuple(x.shape))
    got = got.detach().to(torch.float64)
    expected = reference_numerical(f, x, eps)
    if torch.allclose(got, expected, rtol=1e-6, atol=1e-8):
        return Verdict(True)
    if torch.allclose(got, reference_numerical(f, x, eps, "forward"), rtol=1e-6, atol=1e-8):
        return Verdict.fail("forward_difference", "backward.forward_difference")
    for factor in (2.0, 0.5):
        if torch.allclose(got, factor * expected, rtol=1e-5, atol=1e-8):
            return Verdict.fail("divisor", "backward.divisor", factor=factor)
    return Verdict.fail("wrong_numerical", "backward.wrong_numerical", f=name,
                        got=got.tolist(), expected=[round(v, 6) for v in expected.tolist()])


def judge_numerical_grad(numerical_grad, cases: str = "visible") -> Verdict:
    return running.each_case(numerical_grad, "numerical_grad", NUMERICAL_CASES, cases,
                             _judge_numerical)


# -- (c) backward on a non-scalar output ----------------------------------------------------
WEIGHTED_CASES = {
    "visible": [("x²", lambda x: x ** 2, [1.0, 2.0, 3.0], [1.0, 0.5, -1.0])],
    "hidden": [("sin(x)·x", lambda x: torch.sin(x) * x, [0.3, -1.2], [2.0, 3.0]),
               ("cumsum(x)", lambda x: torch.cumsum(x, 0), [1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0])],
}


def _judge_weighted(weighted_grad, case) -> Verdict:
    name, f, xs, vs = case
    x = torch.tensor(xs, requires_grad=True)
    v = torch.tensor(vs)
    got, failed = running.call(weighted_grad, "weighted_grad", Watched(name, f), x, v)
    if failed:
        return failed
    reference_x = torch.tensor(xs, requires_grad=True)
    (expected,) = torch.autograd.grad(f(reference_x), reference_x, grad_outputs=v)
    if not isinstance(got, torch.Tensor) or got.shape != expected.shape:
        return Verdict.fail("shape", "backward.shape",
                            got=type(got).__name__ if not isinstance(got, torch.Tensor) else tuple(got.shape),
                            expected=tuple(expected.shape))
    if torch.allclose(got, expected, rtol=1e-5, atol=1e-6):
        return Verdict(True)
    (ones,) = torch.autograd.grad(f(reference_x), reference_x, grad_outputs=torch.ones_like(v))
    if torch.allclose(got, ones, rtol=1e-5, atol=1e-6):
        return Verdict.fail("ones_weights", "backward.ones_weights")
    return Verdict.fail("wrong_weighted", "backward.wrong_weighted", f=name,
                        got=[round(g, 5) for g in got.tolist()],
                        expected=[round(e, 5) for e in expected.tolist()])


def judge_weighted_grad(weighted_grad, cases: str = "visible") -> Verdict:
    return running.each_case(weighted_grad, "weighted_grad", WEIGHTED_CASES, cases, _judge_weighted)
