"""The functions lesson 2's exercises differentiate, by name, with their exact derivatives, and
``Watched``, which records how the student's code called one."""
from __future__ import annotations

import math

import torch

# name → (f on a tensor, f' on a float) for the scalar exercise (a)
SCALAR = {
    "x³·sin(x)": (lambda x: x ** 3 * torch.sin(x), lambda x: 3 * x ** 2 * math.sin(x) + x ** 3 * math.cos(x)),
    "exp(−x²)": (lambda x: torch.exp(-x ** 2), lambda x: -2 * x * math.exp(-x ** 2)),
    "x·tanh(x)": (lambda x: x * torch.tanh(x), lambda x: math.tanh(x) + x * (1 - math.tanh(x) ** 2)),
}

# name → (f from a vector to a scalar, number of inputs) for exercise (b)
TO_SCALAR = {
    "sum(exp(3x))": (lambda x: torch.exp(3 * x).sum(), 3),
    "sum(x²·sin(x))": (lambda x: (x ** 2 * torch.sin(x)).sum(), 4),
    "x₀·x₁ + x₁³": (lambda x: x[0] * x[1] + x[1] ** 3, 2),
}

# name → (f from a vector to a vector, number of inputs) for exercise (c); the Jacobian of
# x·sum(x) (sum(x)·I + x·1ᵀ) and of cumsum(x) (ones below the diagonal) is not symmetric, so
# only they tell vᵀJ, what backward(gradient=v) gives, from J·v
TO_VECTOR = {
    "x²": (lambda x: x ** 2, 3),
    "x·sum(x)": (lambda x: x * x.sum(), 3),
    "sin(x)·x": (lambda x: torch.sin(x) * x, 2),
    "cumsum(x)": (lambda x: torch.cumsum(x, 0), 4),
}


def values(gen: torch.Generator, n: int, low: float = -1.5, high: float = 1.5) -> list:
    """``n`` numbers in [low, high], rounded to 3 decimals (they are shown in messages)."""
    return [round(low + (high - low) * float(u), 3) for u in torch.rand(n, generator=gen, dtype=torch.float64)]


class Watched:
    """A function of a tensor that records how it was called: whether the student's code
    used autograd is judged by what happened, not by the code's text."""

    def __init__(self, fn):
        self.fn = fn
        self.calls = 0
        self.calls_with_grad = 0
        self.gradients_back = 0  # gradients autograd passed back through a result of f

    def __call__(self, x):
        self.calls += 1
        if isinstance(x, torch.Tensor) and x.requires_grad:
            self.calls_with_grad += 1
        y = self.fn(x)
        if isinstance(y, torch.Tensor) and y.requires_grad:
            # fires when backward(), autograd.grad or torch.func.grad differentiates through y;
            # a finite difference on a tensor that requires grad never does
            y.register_hook(self._gradient_back)
        return y

    def _gradient_back(self, grad):
        self.gradients_back += 1
