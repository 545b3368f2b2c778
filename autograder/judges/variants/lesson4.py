"""Lesson 4's graded Quick Checks as families of variants (see ``lesson3`` for the idea)."""
from __future__ import annotations

from . import Variant
from .common import number, shuffled


def _list(values) -> str:
    return "[" + ", ".join(number(v) for v in values) + "]"


class ManualUpdate:
    """l4_q1: a hand-written update, rebinding (``w = w - ...``) or in place (``w -= ...``),
    inside ``no_grad`` or not: a new leaf, the same leaf updated, a new non-leaf, or the
    refusal of an in-place change to a leaf that requires grad."""
    question = "l4_q1"
    options = ("tracked_copy", "new_leaf", "same_leaf", "refused")
    FORMS = {"new_leaf": (True, False), "same_leaf": (True, True), "tracked_copy": (False, False),
             "refused": (False, True)}  # right option → (inside no_grad, in place)

    def make(self, right: str, w0: tuple, lr: float, order: tuple, published: bool = False) -> Variant:
        inside, in_place = self.FORMS[right]
        update = f"w -= {lr} * w.grad" if in_place else f"w = w - {lr} * w.grad"
        code = (f"w = torch.tensor([{w0[0]}, {w0[1]}], requires_grad=True)\n"
                "original = w\n"
                "(w ** 2).sum().backward()\n"
                + (f"with torch.no_grad():\n    {update}\n" if inside else f"{update}\n"))
        params = {"original": _list(w0), "updated": _list([v - lr * 2 * v for v in w0])}
        return Variant(self.question, code, order, right, params, published)

    def published(self) -> Variant:
        return self.make("new_leaf", (1.0, 2.0), 0.1, self.options, published=True)

    def draw(self, rng) -> Variant:
        return self.make(rng.choice(sorted(self.FORMS)), rng.choice(((1.0, 2.0), (2.0, 3.0), (1.0, 4.0))),
                         rng.choice((0.1, 0.25)), shuffled(rng, self.options))


class Recording:
    """l4_q2: which of four results require grad, after ``no_grad``, ``enable_grad`` inside it,
    a product with a parameter and ``detach()``."""
    question = "l4_q2"
    options = ("second", "three", "second_third", "none")
    FORMS = {"second_third": ("enable_grad", "first * layer.weight.sum()", "second.detach()"),
             "second": ("enable_grad", "first * 2", "second.detach()"),
             "three": ("enable_grad", "first * layer.weight.sum()", "second * 1"),
             "none": ("no_grad", "first * 2", "second.detach()")}

    def make(self, right: str, width: int, order: tuple, published: bool = False) -> Variant:
        inner, third, fourth = self.FORMS[right]
        code = (f"layer = nn.Linear({width}, {width})\n"
                f"x = torch.randn(1, {width})\n"
                "with torch.no_grad():\n"
                "    first = layer(x)\n"
                f"    with torch.{inner}():\n"
                "        second = layer(x)\n"
                f"third = {third}\n"
                f"fourth = {fourth}\n")
        return Variant(self.question, code, order, right, {}, published)

    def published(self) -> Variant:
        return self.make("second_third", 2, self.options, published=True)

    def draw(self, rng) -> Variant:
        return self.make(rng.choice(sorted(self.FORMS)), rng.choice((2, 3, 4)), shuffled(rng, self.options))


class InPlace:
    """l4_q3: ``h += 1`` on a ReLU's output, which ReLU saved for the backward pass, fails at
    ``backward()``; on a linear layer's output, which nothing saved, it is fine; on a leaf that
    requires grad it is refused at once (the cases lesson 4 teaches)."""
    question = "l4_q3"
    options = ("refused", "no_grad_fn", "fine", "saved_output")
    MAKE_H = {"refused": "h = torch.randn(4, {w}, requires_grad=True)",
              "fine": "h = layer(torch.randn(4, {w}))",
              "saved_output": "h = torch.relu(layer(torch.randn(4, {w})))"}

    def make(self, right: str, width: int, order: tuple, published: bool = False) -> Variant:
        code = (f"layer = nn.Linear({width}, {width})\n"
                f"{self.MAKE_H[right].format(w=width)}\n"
                "h += 1\n"
                "out = (h * 2).sum()\n"
                "out.backward()\n")
        return Variant(self.question, code, order, right, {}, published)

    def published(self) -> Variant:
        return self.make("saved_output", 3, self.options, published=True)

    def draw(self, rng) -> Variant:
        return self.make(rng.choice(sorted(self.MAKE_H)), rng.choice((2, 3, 4)), shuffled(rng, self.options))


FAMILIES = {family.question: family for family in (ManualUpdate(), Recording(), InPlace())}
