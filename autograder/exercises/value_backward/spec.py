"""Lesson 2, exercise (d): the backward step of ``Value``, a scalar that records how it was made
(micrograd's idea): the ``_backward`` of ``+`` and ``*``, and ``backward()``, which seeds the
output's gradient and visits the nodes in reverse topological order.

A scenario is one small graph, written as the statements that build it (``GRAPHS``): its
nodes in the order they are made, each ``[name, op, inputs, value]``, where a leaf has op
``None``, no inputs and a value, and ``"+"`` or ``"*"`` combines two earlier nodes (by
index, possibly the same node twice). The last node is the output. The kernel builds the
graph with the student's class; the judge recomputes every gradient from the same nodes.
"""
from __future__ import annotations

from ...wire.spec import Exercise

EXERCISE = Exercise(
    "value_backward", lesson=2, letter="d", kind="function", answer=("Value",),
    cells=("value_backward", "value_backward_tests"),
    task=("ex-d", "ex-d-one-node"), messages="value_backward",
    summary="Exercise 2(d): backward() of a tiny scalar Value class, for + and *.")

# name → the statements that build the graph (every name not assigned is a leaf)
GRAPHS = {
    "product": ("c = a * b",),
    "double": ("b = a + a",),
    "square": ("b = a * a",),
    "shared": ("c = a * b", "d = c + b", "e = c * d"),
    "sum_squared": ("c = a + b", "d = c * c"),
    "cube": ("b = a * a", "c = b * a"),
    "diamond": ("c = a + b", "d = c * a", "e = c * d", "f = e + c"),
    "twins": ("d = a * c", "e = b * c", "f = d + e"),  # a and b get one value: d and e are equal
}
OPS = ("+", "*")


def leaves(graph: str) -> list:
    """The leaves' names, in the order they first appear."""
    assigned, found = set(), []
    for statement in GRAPHS[graph]:
        target, expression = (part.strip() for part in statement.split("="))
        for name in expression.split()[::2]:
            if name not in assigned and name not in found:
                found.append(name)
        assigned.add(target)
    return found


def nodes(graph: str, values: list) -> list:
    """The graph's nodes, leaves first (with ``values``), then one per statement."""
    built = [[name, None, [], value] for name, value in zip(leaves(graph), values)]
    index = {name: i for i, (name, *_) in enumerate(built)}
    for statement in GRAPHS[graph]:
        target, expression = (part.strip() for part in statement.split("="))
        left, op, right = expression.split()
        index[target] = len(built)
        built.append([target, op, [index[left], index[right]], None])
    return built


def forward(graph_nodes: list) -> list:
    """Every node's value."""
    data = []
    for _, op, inputs, value in graph_nodes:
        if op is None:
            data.append(float(value))
        else:
            x, y = (data[i] for i in inputs)
            data.append(x + y if op == "+" else x * y)
    return data


def statement(graph_nodes: list, index: int) -> str:
    """How node ``index`` is made, as code: ``c = a * b`` (or ``a = Value(1.5)``)."""
    name, op, inputs, value = graph_nodes[index]
    if op is None:
        return f"{name} = Value({value})"
    left, right = (graph_nodes[i][0] for i in inputs)
    return f"{name} = {left} {op} {right}"


def program(graph_nodes: list) -> str:
    """The code that builds the graph and runs the backward pass, on one line."""
    lines = [statement(graph_nodes, i) for i in range(len(graph_nodes))]
    return "; ".join(lines + [f"{graph_nodes[-1][0]}.backward()"])
