"""The backward pass one node at a time, on a graph of scalars (lesson 2, section 3, and the
first step of exercise (d)).

The graph is section 1's loss, (w·x + b − y)² at w = 2, x = 3, b = 1, y = 10, written with
``*`` and ``+`` only, as exercise (d)'s ``Value`` records it: ``p = w * x``, ``q = p + b``,
``e = q + n`` (``n`` = −y), ``loss = e * e``. ``e`` is both factors of the last product, so it
receives two shares of the gradient.

``trace`` runs the backward pass as ``Value`` does, step by step: step 0 before it (every grad
0), step 1 the output's grad set to 1, then one node's ``_backward()`` per step, each node after
every node that uses it. Its last step is PyTorch's gradient of the same graph
(``torch_grads``; tests/test_value_graph.py holds them equal). ``student_trace`` runs the same
steps with a student's ``Value`` class, calling their ``_backward()`` of each node itself, so a
student can check one operation's backward before writing ``backward()``.

``ValueGraph`` draws it as micrograd draws its graphs (each value's data and grad) with a slider
for the step; given the student's class, their numbers, with the ones that differ from the
chain rule's in red.
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from functools import cached_property

import ipywidgets
import torch

from . import graph_view, plots
from .text import text
from .widgets import PlotWidget

# section 1's loss: leaves (name, data), then how each other node is made, the output last
LEAVES = (("w", 2.0), ("x", 3.0), ("b", 1.0), ("n", -10.0))
STATEMENTS = ("p = w * x", "q = p + b", "e = q + n", "loss = e * e")


@dataclass(frozen=True)
class Node:
    name: str
    op: str | None  # "+" or "*"; None for a leaf
    inputs: tuple  # indices of earlier nodes (the same one twice for e * e)
    data: float


def build(leaves=LEAVES, statements=STATEMENTS) -> list:
    """The nodes, leaves first, each with its data computed forward."""
    nodes = [Node(name, None, (), float(value)) for name, value in leaves]
    index = {node.name: i for i, node in enumerate(nodes)}
    for statement in statements:
        target, expression = (part.strip() for part in statement.split("="))
        left, op, right = expression.split()
        a, b = nodes[index[left]].data, nodes[index[right]].data
        index[target] = len(nodes)
        nodes.append(Node(target, op, (index[left], index[right]), a + b if op == "+" else a * b))
    return nodes


def order(nodes: list) -> list:
    """The computed nodes in the order backward() visits them: the reverse of a depth-first
    post-order from the output, so each comes after every node that uses it."""
    post, seen = [], set()

    def visit(i):
        if i not in seen:
            seen.add(i)
            for j in nodes[i].inputs:
                visit(j)
            post.append(i)

    visit(len(nodes) - 1)
    return [i for i in reversed(post) if nodes[i].op is not None]


@dataclass
class Step:
    grads: list  # every node's grad after this step
    ran: int | None = None  # the node whose _backward() ran in this step (None: before it, or the seed)
    updates: list = field(default_factory=list)  # (input, local factor or None, out.grad, grad after)


def _backward(nodes: list, i: int, grads: list) -> list:
    """Node i passes its gradient on, as Value's ``_backward`` does: ``+`` adds out.grad into
    each input's grad, ``*`` adds the other input's data times out.grad (self first)."""
    node, g, updates = nodes[i], grads[i], []
    first, second = node.inputs
    for own, other in ((first, second), (second, first)):
        factor = None if node.op == "+" else nodes[other].data
        grads[own] += g if factor is None else factor * g
        updates.append((own, other if factor is not None else None, g, grads[own]))
    return updates


def trace(nodes: list) -> list:
    """The backward pass as a list of steps (see the module's docstring)."""
    grads = [0.0] * len(nodes)
    steps = [Step(list(grads))]
    grads[-1] = 1.0
    steps.append(Step(list(grads), None))
    for i in order(nodes):
        updates = _backward(nodes, i, grads)
        steps.append(Step(list(grads), i, updates))
    return steps


def torch_grads(nodes: list) -> list:
    """PyTorch's gradient of the output with respect to every node of the same graph (float64,
    every leaf requiring grad, every other node keeping its grad with retain_grad)."""
    tensors = []
    for node in nodes:
        if node.op is None:
            tensors.append(torch.tensor(node.data, dtype=torch.float64, requires_grad=True))
        else:
            a, b = (tensors[j] for j in node.inputs)
            tensors.append(a + b if node.op == "+" else a * b)
            tensors[-1].retain_grad()
    tensors[-1].backward()
    return [t.grad.item() for t in tensors]


def statement(nodes: list, i: int) -> str:
    node = nodes[i]
    left, right = (nodes[j].name for j in node.inputs)
    return f"{node.name} = {left} {node.op} {right}"


@dataclass
class StudentRun:
    """What a student's class did on the graph: its data, its grads after each step it got
    through, and what stopped it (the step, the node and the exception), if anything did."""
    data: list
    grads: list
    failure: tuple | None = None


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return math.nan


def student_trace(cls, nodes: list) -> StudentRun:
    """The same steps with the student's class: build the graph with it, set the output's grad
    to 1, and call each node's own ``_backward()`` in backward()'s order."""
    built = []
    try:
        for node in nodes:
            if node.op is None:
                built.append(cls(node.data))
            else:
                a, b = (built[j] for j in node.inputs)
                built.append(a + b if node.op == "+" else a * b)
        data = [_number(v.data) for v in built]
        grads = [[_number(v.grad) for v in built]]
        built[-1].grad = 1.0
        grads.append([_number(v.grad) for v in built])
    except Exception as exc:  # their class: whatever it raises is theirs to read
        return StudentRun([], [], (0, None, exc))
    run = StudentRun(data, grads)
    for step, i in enumerate(order(nodes), start=2):
        try:
            built[i]._backward()
        except Exception as exc:
            run.failure = (step, i, exc)
            return run
        grads.append([_number(v.grad) for v in built])
    return run


def _close(got: float, expected: float) -> bool:
    return math.isfinite(got) and abs(got - expected) <= 1e-9 + 1e-9 * abs(expected)


def _factor(value: float) -> str:
    """A number as the second factor of a product: in parentheses when negative, 3 · (-6)."""
    return f"({value:g})" if value < 0 else f"{value:g}"


def describe_step(nodes: list, steps: list, k: int) -> str:
    """The caption of step ``k`` of the chain rule's own pass."""
    if k == 0:
        return text("value_graph.start", out=nodes[-1].name)
    if k == 1:
        return text("value_graph.seed", out=nodes[-1].name)
    step = steps[k]
    out = nodes[step.ran].name
    parts = []
    for own, other, g, after in step.updates:
        term = f"{nodes[other].data:g} · {_factor(g)}" if other is not None else f"{g:g}"
        parts.append(f"{nodes[own].name}.grad += {term} → {after:g}")
    said = text("value_graph.step", step=k, node=out, expr=statement(nodes, step.ran), updates="; ".join(parts))
    if k == len(steps) - 1:
        said = text("value_graph.done", step=said, out=nodes[-1].name,
                    leaves=", ".join(f"{n.name}.grad = {g:g}" for n, g in zip(nodes, step.grads) if n.op is None))
    return said


def _said(exc: BaseException) -> str:
    """An exception of the student's class as the caption (HTML) shows it: its name and text."""
    return html.escape(f"{type(exc).__name__}: {exc}"[:300])


def verdict(nodes: list, steps: list, run: StudentRun) -> tuple[str, int | None]:
    """What the student's class did, in one caption, and the first step where it differs."""
    if run.failure and run.failure[0] == 0:
        exc = run.failure[2]
        return text("value_graph.build_error", error=_said(exc)), None
    for k, grads in enumerate(run.grads):
        wrong = [i for i, (got, want) in enumerate(zip(grads, steps[k].grads)) if not _close(got, want)]
        if wrong and steps[k].ran is None:  # before any _backward(): the class's own start
            return text("value_graph.start_differs", bad=nodes[wrong[0]].name, got=grads[wrong[0]]), k
        if wrong:
            ran = steps[k].ran
            return text("value_graph.differs", step=k, node=nodes[ran].name, bad=nodes[wrong[0]].name,
                        got=grads[wrong[0]], expected=steps[k].grads[wrong[0]], op=nodes[ran].op), k
    if run.failure:
        step, i, exc = run.failure
        if isinstance(exc, NotImplementedError) and not exc.args:
            return text("value_graph.not_written", op=nodes[i].op, node=nodes[i].name, step=step), step
        return text("value_graph.error", step=step, node=nodes[i].name, error=_said(exc)), step
    return text("value_graph.matches", steps=len(steps) - 1, out=nodes[-1].name), None


class ValueGraph(PlotWidget):
    """The graph of section 3 with a slider for the step of the backward pass. Alone, the chain
    rule's numbers (start at step 0 and trace by hand); given a student's ``Value`` class, its
    numbers at every step (the slider starts at the last), red where they differ."""

    def __init__(self, student=None):
        self.student = student
        self.nodes = build()
        self.steps = trace(self.nodes)
        last = len(self.steps) - 1
        self.slider = ipywidgets.IntSlider(value=0 if student is None else last, min=0, max=last,
                                           description=text("value_graph.slider"),
                                           style={"description_width": "initial"}, continuous_update=True)
        super().__init__([self.slider], [self.slider])

    @cached_property
    def figure(self):
        return plots.new_figure(8.4, 3.4)

    @cached_property
    def run(self) -> StudentRun:
        """The student's class on the graph: run once, when first drawn (never while grading)."""
        return student_trace(self.student, self.nodes)

    def title(self, k: int) -> str:
        return text("value_graph.title", graph="; ".join(STATEMENTS), step=k, total=len(self.steps) - 1)

    def picture(self, k: int, data: list, grads: list, wrong=frozenset()) -> bytes:
        step = self.steps[k]
        changed = {own for own, *_ in step.updates} | ({len(self.nodes) - 1} if k == 1 else set())
        nodes = [(n.name, n.op, n.inputs) for n in self.nodes]
        graph_view.draw_values(nodes, data, grads, self.title(k), self.figure, ran=step.ran,
                               changed=changed, wrong=wrong)
        return plots.png(self.figure)

    def draw(self):
        k = self.slider.value
        if self.student is None:
            return (self.picture(k, [n.data for n in self.nodes], self.steps[k].grads),
                    describe_step(self.nodes, self.steps, k))
        caption, _ = verdict(self.nodes, self.steps, self.run)
        if not self.run.grads:
            return None, caption
        shown = min(k, len(self.run.grads) - 1)  # past a step that failed: the grads it stopped at
        grads = self.run.grads[shown]
        wrong = {i for i, (got, want) in enumerate(zip(grads, self.steps[shown].grads)) if not _close(got, want)}
        return self.picture(shown, self.run.data, grads, wrong), caption
