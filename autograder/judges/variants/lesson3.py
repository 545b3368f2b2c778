"""Lesson 3's graded Quick Checks as families of variants.

Each family changes the code so that a different option is right, the numbers, and the
order of the options. Its ``published()`` variant is the one the lesson was written
around (its key is the one the source notebook's solution gives).
"""
from __future__ import annotations

from . import Variant
from .common import number as _number, plain as _plain, shuffled as _shuffled


class StepOrder:
    """l3_q1: where ``optimizer.step()`` sits in the loop decides which gradient the second
    step uses: the previous batch's, this batch's, the sum of both, or none at all."""
    question = "l3_q1"
    options = ("current", "sum", "previous", "none")
    bodies = {
        "previous": ("optimizer.step()", "optimizer.zero_grad()", "loss = loss_fn(model(x), y)", "loss.backward()"),
        "current": ("optimizer.zero_grad()", "loss = loss_fn(model(x), y)", "loss.backward()", "optimizer.step()"),
        "sum": ("loss = loss_fn(model(x), y)", "loss.backward()", "optimizer.step()"),
        "none": ("optimizer.zero_grad()", "optimizer.step()", "loss = loss_fn(model(x), y)", "loss.backward()"),
    }
    head = ("model = nn.Linear(3, 1)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
            "loss_fn = nn.MSELoss()\nfor x, y in batches:\n")

    def make(self, right: str, order: tuple, published: bool = False) -> Variant:
        code = self.head + "".join(f"    {line}\n" for line in self.bodies[right])
        return Variant(self.question, code, order, right, {}, published)

    def published(self) -> Variant:
        return self.make("previous", self.options, published=True)

    def draw(self, rng) -> Variant:
        return self.make(rng.choice(sorted(self.bodies)), _shuffled(rng, self.options))


class ClearedOnce:
    """l3_q2: ``w.grad`` after ``steps`` backward passes with one ``w.grad = None`` among them:
    the gradients since the clearing, not all of them, not the last one alone."""
    question = "l3_q2"
    options = ("last", "since_clear", "all", "no_b")

    def make(self, w0: int, b: int, steps: int, clear: int, order: tuple, published: bool = False) -> Variant:
        code = (f"w = torch.tensor({w0}.0, requires_grad=True)\n"
                f"for step in range({steps}):\n"
                f"    if step == {clear}:\n"
                f"        w.grad = None\n"
                f"    loss = w * w + {'' if b == 1 else f'{b} * '}w\n"
                f"    loss.backward()\n")
        g = 2 * w0 + b
        values = {"last": g, "since_clear": (steps - clear) * g, "all": steps * g, "no_b": 2 * w0}
        literals = {k: f"tensor({_number(v)})" for k, v in values.items()}
        return Variant(self.question, code, order, "since_clear", {"literals": literals}, published)

    def published(self) -> Variant:
        return self.make(1, 1, 3, 1, self.options, published=True)

    def draw(self, rng) -> Variant:
        steps = rng.choice((3, 4, 5))
        return self.make(rng.choice((1, 2, 3)), rng.choice((1, 2, 3, 4)), steps, rng.randrange(1, steps - 1),
                         _shuffled(rng, self.options))


class SecondStep:
    """l3_q3: a second ``step()`` after ``zero_grad``: with weight decay and zeroed gradients
    the parameter still shrinks; with ``set_to_none=True`` the step skips it."""
    question = "l3_q3"
    options = ("no_memory", "skipped", "again", "decay")

    def make(self, p0: float, lr: float, wd: float, g: float, to_none: bool, order: tuple,
             published: bool = False) -> Variant:
        code = (f"p = nn.Parameter(torch.tensor({p0}))\n"
                f"optimizer = torch.optim.SGD([p], lr={lr}, weight_decay={wd})\n"
                f"p.grad = torch.tensor({g})\n"
                f"optimizer.step()\n"
                f"optimizer.zero_grad(set_to_none={to_none})\n"
                f"optimizer.step()\n")
        p1 = p0 - lr * (g + wd * p0)
        params = {"p1": _plain(p1), "g": repr(g), "wd": repr(wd),
                  "p_again": _plain(p1 - lr * g), "p_decay": _plain(p1 * (1 - lr * wd))}
        return Variant(self.question, code, order, "skipped" if to_none else "decay", params, published)

    def published(self) -> Variant:
        return self.make(1.0, 0.1, 0.5, 2.0, False, self.options, published=True)

    def draw(self, rng) -> Variant:
        return self.make(rng.choice((1.0, 2.0, 4.0)), rng.choice((0.1, 0.2)), rng.choice((0.5, 0.25)),
                         rng.choice((1.0, 2.0, 3.0)), rng.random() < 0.5, _shuffled(rng, self.options))


class MicroBatches:
    """l3_q4: accumulating ``k`` micro-batches per step: without a ``zero_grad()`` after the
    step, the second step adds both groups' gradients; with it, only the second group's."""
    question = "l3_q4"
    options = ("both", "second_group", "all", "last_alone")

    def make(self, k: int, cleared: bool, order: tuple, published: bool = False) -> Variant:
        code = ("optimizer.zero_grad()\n"
                "for i, (x, y) in enumerate(batches):\n"
                f"    loss = loss_fn(model(x), y) / {k}\n"
                "    loss.backward()\n"
                f"    if (i + 1) % {k} == 0:\n"
                "        optimizer.step()\n"
                + ("        optimizer.zero_grad()\n" if cleared else ""))
        params = {"k": k, "k1": k + 1, "n": 2 * k}
        return Variant(self.question, code, order, "second_group" if cleared else "both", params, published)

    def published(self) -> Variant:
        return self.make(3, False, self.options, published=True)

    def draw(self, rng) -> Variant:
        return self.make(rng.choice((2, 3, 4)), rng.random() < 0.5, _shuffled(rng, self.options))


class Accumulation:
    """Exercise 3(a), its graded half: ``.grad`` of ``v`` at four moments, for a start value
    and a loss ``c * v ** 2`` of the student's own."""
    question = "l3_accumulation_predictions"
    options = ()

    def make(self, v0: float, c: int, published: bool = False) -> Variant:
        loss = f"({c} * v ** 2).backward()"
        code = (f"v = torch.tensor({v0}, requires_grad=True)\n"
                "# (1) v_grad_before\n"
                f"{loss}\n"
                "# (2) v_grad_after_one\n"
                f"{loss}\n"
                "# (3) v_grad_after_two\n"
                "v.grad = None\n"
                f"{loss}\n"
                "# (4) v_grad_after_clear\n")
        return Variant(self.question, code, (), "", {"v0": v0, "c": c}, published)

    def published(self) -> Variant:
        return self.make(-1.5, 3, published=True)

    def draw(self, rng) -> Variant:
        return self.make(rng.choice((-2.5, -1.5, -0.5, 0.5, 1.5, 2.5)), rng.choice((2, 3, 4, 5)))


FAMILIES = {family.question: family
            for family in (StepOrder(), ClearedOnce(), SecondStep(), MicroBatches(), Accumulation())}
