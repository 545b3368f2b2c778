"""Lesson 1's graded Quick Checks as families of variants (see ``lesson3`` for the idea)."""
from __future__ import annotations

from . import Variant
from .common import shuffled


class LeafOrNot:
    """l1_q1: ``requires_grad`` and ``is_leaf`` of a tensor made after ``detach()`` (or not)
    and of one computed from it. A tensor that does not require grad is always a leaf, so
    option ``nonleaf_nograd`` is never right."""
    question = "l1_q1"
    options = ("detached", "both_track", "nonleaf_nograd", "both_plain")

    def make(self, right: str, n: int, k: int, order: tuple, published: bool = False) -> Variant:
        s = f"(w * {k}).detach() + data" if right != "both_track" else f"w * {k} + data"
        t = "s * w.detach()" if right == "both_plain" else "s * w"
        code = (f"w = torch.ones({n}, requires_grad=True)\n"
                f"data = torch.ones({n})\n"
                f"s = {s}\n"
                f"t = {t}\n")
        return Variant(self.question, code, order, right, {}, published)

    def published(self) -> Variant:
        return self.make("detached", 3, 2, self.options, published=True)

    def draw(self, rng) -> Variant:
        return self.make(rng.choice(("detached", "both_track", "both_plain")), rng.choice((2, 3, 4)),
                         rng.choice((2, 3, 5)), shuffled(rng, self.options))


class WhichLineRaises:
    """l1_q2: which of three lines that set ``requires_grad`` raises first (the first that sets
    the flag of a non-leaf), or none (every tensor whose flag is set is a leaf)."""
    question = "l1_q2"
    options = ("x_flag", "z_flag", "y_flag", "none")
    LINES = {"x_flag": "x.requires_grad = True", "z_flag": "z.requires_grad = True",
             "y_flag": "y.requires_grad = False"}

    def make(self, right: str, n: int, power: int, order: tuple, published: bool = False) -> Variant:
        x = f"torch.randn({n}, requires_grad=True) * 2" if right == "x_flag" else f"torch.randn({n})"
        y = f"(x ** {power}).sum()" + (".detach()" if right == "none" else "")
        z = "y * 2" if right == "z_flag" else "y.detach()"
        code = (f"x = {x}\n"
                "x.requires_grad = True\n"
                f"y = {y}\n"
                f"z = {z}\n"
                "z.requires_grad = True\n"
                "y.requires_grad = False\n")
        return Variant(self.question, code, order, right, {"literals": dict(self.LINES)}, published)

    def published(self) -> Variant:
        return self.make("y_flag", 3, 2, self.options, published=True)

    def draw(self, rng) -> Variant:
        return self.make(rng.choice(self.options), rng.choice((3, 4, 5)), rng.choice((2, 3)),
                         shuffled(rng, self.options))


class FrozenLayer:
    """l1_q3: which parameters hold a gradient when one layer of two is frozen (or none is)."""
    question = "l1_q3"
    options = ("all", "none", "second", "first")

    def make(self, right: str, width: int, order: tuple, published: bool = False) -> Variant:
        freeze = {"first": "net[1].requires_grad_(False)", "second": "net[0].requires_grad_(False)",
                  "all": "net[0].requires_grad_(True)"}[right]
        code = (f"net = nn.Sequential(nn.Linear(2, {width}), nn.Linear({width}, 1))\n"
                f"{freeze}\n"
                "net(torch.ones(1, 2)).sum().backward()\n")
        return Variant(self.question, code, order, right, {}, published)

    def published(self) -> Variant:
        return self.make("first", 2, self.options, published=True)

    def draw(self, rng) -> Variant:
        return self.make(rng.choice(("all", "second", "first")), rng.choice((2, 3, 4)), shuffled(rng, self.options))


class GraphCode:
    """Exercise 1(a): the code whose tensors' ``requires_grad``, ``is_leaf`` and ``grad_fn`` the
    student predicts. Which input requires grad, the operations and what ``d`` is change, so
    the graded part (``z`` and ``d``) has other answers for other students."""
    question = "l1_graph_predictions"
    options = ()
    OPERATIONS = ("*", "+", "-", "/")
    REDUCTIONS = ("sum", "mean", "prod")
    LAST = ("z.detach()", "z * 2", "k.sum()")

    def make(self, tracked: str, operation: str, reduction: str, last: str, values: tuple,
             published: bool = False) -> Variant:
        a, b, c, d = values
        flag = ", requires_grad=True"
        code = (f"x = torch.tensor([{a}, {b}]{flag if tracked == 'x' else ''})\n"
                f"k = torch.tensor([{c}, {d}]{flag if tracked == 'k' else ''})\n"
                f"y = x {operation} k\n"
                f"z = y.{reduction}()\n"
                f"d = {last}\n")
        return Variant(self.question, code, (), "", {}, published)

    def published(self) -> Variant:
        return self.make("x", "*", "sum", "z.detach()", (1.0, 2.0, 3.0, 4.0), published=True)

    def draw(self, rng) -> Variant:
        return self.make(rng.choice("xk"), rng.choice(self.OPERATIONS), rng.choice(self.REDUCTIONS),
                         rng.choice(self.LAST), tuple(float(rng.randint(1, 5)) for _ in range(4)))


FAMILIES = {family.question: family for family in (LeafOrNot(), WhichLineRaises(), FrozenLayer(), GraphCode())}
