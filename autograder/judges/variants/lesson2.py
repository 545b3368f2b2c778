"""Lesson 2's graded Quick Checks as families of variants (see ``lesson3`` for the idea)."""
from __future__ import annotations

import math

from . import Variant
from .common import number, shuffled, tensor


class Branch:
    """l2_q1: the graph holds only the branch that ran, so ``x.grad`` is that branch's
    derivative (the other branch's, ``None`` and an error at ``if`` are never right)."""
    question = "l2_q1"
    options = ("power_branch", "linear_branch", "none", "error")

    def make(self, x0: int, power: int, c: int, order: tuple, published: bool = False) -> Variant:
        code = (f"x = torch.tensor({x0}.0, requires_grad=True)\n"
                "if x > 0:\n"
                f"    y = x ** {power}\n"
                "else:\n"
                f"    y = {c} * x\n"
                "y.backward()\n")
        literals = {"power_branch": tensor(power * x0 ** (power - 1)), "linear_branch": tensor(c)}
        right = "power_branch" if x0 > 0 else "linear_branch"
        return Variant(self.question, code, order, right, {"literals": literals}, published)

    def published(self) -> Variant:
        return self.make(-2, 3, -4, self.options, published=True)

    def draw(self, rng) -> Variant:
        while True:
            x0, power, c = rng.choice((-3, -2, -1, 1, 2, 3)), rng.choice((2, 3)), rng.choice((-5, -4, -3, 3, 4, 5))
            if power * x0 ** (power - 1) != c:
                return self.make(x0, power, c, shuffled(rng, self.options))


class VectorJacobian:
    """l2_q2: ``y.backward(gradient=v)`` leaves vᵀJ in ``x.grad``; the distractors are J's row
    sums (v of ones), Jv, and the claim that a non-scalar ``y`` cannot go backward with a
    ``gradient``."""
    question = "l2_q2"
    options = ("ones", "jv", "error", "vjp")

    def make(self, a: int, b: int, v0: int, v1: int, order: tuple, published: bool = False) -> Variant:
        code = (f"x = torch.tensor([{a}.0, {b}.0], requires_grad=True)\n"
                "y = torch.stack([x[0] * x[1], x[0] + x[1]])\n"
                f"y.backward(gradient=torch.tensor([{v0}.0, {v1}.0]))\n")
        values = {"ones": [b + 1, a + 1], "jv": [b * v0 + a * v1, v0 + v1], "vjp": [b * v0 + v1, a * v0 + v1]}
        literals = {name: tensor(value) for name, value in values.items()}
        return Variant(self.question, code, order, "vjp", {"literals": literals}, published)

    def published(self) -> Variant:
        return self.make(2, 3, 1, 10, self.options, published=True)

    def draw(self, rng) -> Variant:
        while True:
            a, b, v0, v1 = rng.choice((1, 2, 3, 4)), rng.choice((2, 3, 5)), rng.choice((1, 2, 3)), rng.choice((5, 10))
            drawn = self.make(a, b, v0, v1, shuffled(rng, self.options))
            if len(set(drawn.params["literals"].values())) == 3:
                return drawn


class SharedGraph:
    """l2_q3: two losses share part of a graph; the second backward pass fails unless the
    first kept the graph (``retain_graph=True``), and then the gradients add up."""
    question = "l2_q3"
    options = ("second_raises", "both_add", "last_only", "first_raises")

    def make(self, s0: int, c1: int, c2: int, retain: bool, order: tuple, published: bool = False) -> Variant:
        code = (f"s = torch.tensor({s0}.0, requires_grad=True)\n"
                "shared = s.exp()\n"
                f"loss1 = shared * {c1}\n"
                f"loss2 = shared * {c2}\n"
                f"loss1.backward({'retain_graph=True' if retain else ''})\n"
                "loss2.backward()\n")
        e = math.exp(s0)
        params = {"s0": s0, "both": c1 + c2, "both_value": f"{(c1 + c2) * e:.1f}", "last": c2,
                  "last_value": f"{c2 * e:.1f}"}
        return Variant(self.question, code, order, "both_add" if retain else "second_raises", params, published)

    def published(self) -> Variant:
        return self.make(2, 3, 5, False, self.options, published=True)

    def draw(self, rng) -> Variant:
        c1, c2 = rng.sample((2, 3, 4, 5, 7), 2)
        return self.make(rng.choice((1, 2, 3)), c1, c2, rng.random() < 0.5, shuffled(rng, self.options))


FAMILIES = {family.question: family for family in (Branch(), VectorJacobian(), SharedGraph())}
