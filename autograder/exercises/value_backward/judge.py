"""Lesson 2, exercise (d): the backward step of a tiny scalar ``Value`` class.

The kernel builds each graph (``spec``) with the student's class,
runs ``backward()`` on its output and reports every node's ``data`` and ``grad``, and the
order in which the nodes' ``_backward()`` ran. The judge recomputes the gradients itself
(``reference``; a test compares it with PyTorch on the same graphs) and, when they differ,
names the mistake: from the order of the calls (a node never visited, visited twice, or
before a node that uses it), else by recomputing the gradients with each known mistake
(``=`` instead of ``+=``, a wrong local derivative, no ``out.grad``, no seed) in the order
the student's code visited the nodes, and finding the one that gives what was observed.
"""
from __future__ import annotations

import itertools
import math

import torch

from ...wire.codec import decode
from .spec import OPS, forward, leaves, nodes, program, statement
from ...wire.verdict import PASS, Verdict, nested
from ...judges.seeds import generator

CASES = {
    "visible": [dict(seed=0, graph="product"), dict(seed=1, graph="double"), dict(seed=2, graph="square"),
                dict(seed=3, graph="shared")],
    "hidden": [dict(seed=4, graph="sum_squared"), dict(seed=5, graph="cube"), dict(seed=6, graph="diamond"),
               dict(seed=7, graph="twins")],
}
# leaf values: one decimal, never 0 or ±1 (where a wrong rule could give the right number)
MAGNITUDES = [k / 10 for k in range(5, 26) if k != 10]

# a local derivative, times what arrives from above: (own data, other input's data, out.grad) → gradient
LOCAL = {
    "g": lambda own, other, g: g,
    "1": lambda own, other, g: 1.0,
    "other*g": lambda own, other, g: other * g,
    "own*g": lambda own, other, g: own * g,
    "other": lambda own, other, g: other,
}
RIGHT = {"+": "g", "*": "other*g"}
# mistakes of the local derivatives alone: (kind, the rules that make it, the ops they touch)
WRONG_LOCAL = [
    ("own", {"*": "own*g"}, "*"),  # d(a·b)/da taken as a, not b
    ("no_upstream", {"+": "1"}, "+"),  # the local derivative without out.grad
    ("no_upstream", {"*": "other"}, "*"),
    ("no_upstream", {"+": "1", "*": "other"}, "+*"),
    ("swapped", {"*": "g"}, "*"),  # the other operation's rule
    ("swapped", {"+": "other*g"}, "+"),
    ("swapped", {"+": "other*g", "*": "g"}, "+*"),
]


def scenario(spec: dict, seed: int) -> dict:
    gen = generator(seed)
    count = len(leaves(spec["graph"]))
    values: list = []
    while len(values) < count:
        magnitude = MAGNITUDES[int(_uniform(gen) * len(MAGNITUDES))]
        if all(abs(v) != magnitude for v in values):
            values.append(magnitude if _uniform(gen) < 0.5 else -magnitude)
    if spec["graph"] == "twins":  # two different nodes with one value: a node is not its number
        values[2] = values[0]
    return {"spec": dict(spec), "nodes": nodes(spec["graph"], values)}


def _uniform(gen) -> float:
    return float(torch.rand(1, generator=gen, dtype=torch.float64))


def consumers(graph_nodes: list) -> list:
    """For each node, the nodes that use it (once per use, in the order they were made)."""
    users = [[] for _ in graph_nodes]
    for index, (_, op, inputs, _) in enumerate(graph_nodes):
        for i in inputs:
            users[i].append(index)
    return users


def topological(graph_nodes: list) -> list:
    """The computed nodes from the output back: each after every node that uses it (the
    reverse of a depth-first post-order from the output)."""
    order, seen = [], set()

    def visit(index):
        if index not in seen:
            seen.add(index)
            for i in graph_nodes[index][2]:
                visit(i)
            order.append(index)

    visit(len(graph_nodes) - 1)
    return [i for i in reversed(order) if graph_nodes[i][1] is not None]


def backprop(graph_nodes: list, order: list, rules: dict | None = None, assign=frozenset(),
             seed_first: bool = True) -> list:
    """Every node's gradient after running the nodes' backward in ``order``, with the local
    derivatives ``rules`` (by op), assigning (``=``) instead of adding for the (op, input)
    pairs in ``assign`` (input 0 is ``self``, 1 is ``other``; ``self`` is written first),
    and the output seeded with 1 before the pass (or, ``seed_first=False``, after it)."""
    rules = dict(RIGHT, **(rules or {}))
    data = forward(graph_nodes)
    grads = [0.0] * len(graph_nodes)
    if seed_first:
        grads[-1] = 1.0
    for index in order:
        _, op, (first, second), _ = graph_nodes[index]
        g = grads[index]
        for side, (own, other) in enumerate(((first, second), (second, first))):
            passed = LOCAL[rules[op]](data[own], data[other], g)
            grads[own] = passed if (op, side) in assign else grads[own] + passed
    if not seed_first:
        grads[-1] = 1.0
    return grads


def reference(graph_nodes: list) -> list:
    """The right gradient of the output with respect to every node."""
    return backprop(graph_nodes, topological(graph_nodes))


def _close(got, expected) -> bool:
    return math.isfinite(got) and abs(got - expected) <= 1e-9 + 1e-7 * abs(expected)


def _same(got: list, expected: list) -> bool:
    return all(_close(g, e) for g, e in zip(got, expected))


def _number(value) -> bool:
    return type(value) in (int, float)


def _float(value) -> float:
    try:
        return float(value)
    except OverflowError:  # an int too large for a float
        return math.inf


def _ops(symbols: str):
    """The ops a message names: one in backquotes, or both (a message of its own)."""
    return f"`{symbols}`" if len(symbols) == 1 else nested("value_backward.both_ops")


def _wrong_node(graph_nodes, got, expected, users=None) -> int:
    """The node made last among those whose gradient is wrong: every node that uses it has
    the right gradient, so its own is wrong because of what those nodes passed back. With
    ``users``, the last such node that is used more than once, if there is one."""
    wrong = [i for i in range(len(graph_nodes)) if not _close(got[i], expected[i])]
    if users is not None:
        reused = [i for i in wrong if len(users[i]) > 1]
        wrong = reused or wrong
    return wrong[-1]


def _order_mistake(graph_nodes, calls, users, fields) -> Verdict | None:
    """A node never visited, visited twice, or visited before a node that uses it."""
    computed = topological(graph_nodes)  # from the output back
    for index in computed:
        if calls.count(index) == 0:
            return Verdict.fail("not_visited", "value_backward.not_visited",
                                node=graph_nodes[index][0], **fields)
    for index in computed:
        if calls.count(index) > 1:
            return Verdict.fail("visited_twice", "value_backward.visited_twice", node=graph_nodes[index][0],
                                count=calls.count(index), **fields)
    position = {index: calls.index(index) for index in computed}
    for index in sorted(computed):
        for user in users[index]:
            if position[user] > position[index]:
                return Verdict.fail("topological_order", "value_backward.before_consumers",
                                    node=graph_nodes[index][0], consumer=graph_nodes[user][0],
                                    consumer_expr=statement(graph_nodes, user), **fields)
    return None


def verify(data: dict, observation: dict) -> Verdict:
    graph_nodes = data["nodes"]
    n = len(graph_nodes)
    values, grads = decode(observation.get("data")), decode(observation.get("grads"))
    calls = observation.get("calls")
    if not (isinstance(values, list) and isinstance(grads, list) and len(values) == len(grads) == n
            and isinstance(calls, list) and all(type(c) is int and 0 <= c < n for c in calls)):
        return Verdict.fail("malformed", "judge.malformed")
    fields = {"graph": program(graph_nodes)}
    for index, (value, expected) in enumerate(zip(values, forward(graph_nodes))):
        if not (_number(value) and _close(_float(value), expected)):
            return Verdict.fail("forward_changed", "value_backward.forward_changed",
                                expr=statement(graph_nodes, index), got=str(value), expected=expected, **fields)
    for index, grad in enumerate(grads):
        if not _number(grad):
            return Verdict.fail("grad_not_number", "value_backward.grad_not_number",
                                node=graph_nodes[index][0], got=str(grad)[:60], **fields)
    grads = [_float(g) for g in grads]
    expected = reference(graph_nodes)
    if _same(grads, expected):
        return PASS

    output = graph_nodes[-1][0]
    if all(g == 0 for g in grads):
        return Verdict.fail("no_seed", "value_backward.no_seed", **fields)
    if not _close(grads[-1], 1.0):
        return Verdict.fail("wrong_seed", "value_backward.wrong_seed", node=output, got=grads[-1], **fields)
    users = consumers(graph_nodes)
    order = topological(graph_nodes)
    if not calls:
        if all(g == 0 for g in grads[:-1]):
            return Verdict.fail("not_visited", "value_backward.never_called", **fields)
    else:
        mistake = _order_mistake(graph_nodes, calls, users, fields)
        if mistake:
            return mistake
        order = [i for i in calls if graph_nodes[i][1] is not None]

    if _same(grads, backprop(graph_nodes, order, seed_first=False)):
        return Verdict.fail("late_seed", "value_backward.late_seed", **fields)
    pairs = [(op, side) for op in OPS for side in (0, 1)]
    for count in range(1, len(pairs) + 1):
        for assign in itertools.combinations(pairs, count):
            if _same(grads, backprop(graph_nodes, order, assign=frozenset(assign))):
                index = _wrong_node(graph_nodes, grads, expected, users)
                ops = "".join(op for op in OPS if any(o == op for o, _ in assign))
                return Verdict.fail("overwrote_grad", "value_backward.overwrite", node=graph_nodes[index][0],
                                    uses=len(users[index]), got=grads[index], expected=expected[index],
                                    ops=_ops(ops), **fields)
    for kind, rules, ops in WRONG_LOCAL:
        if _same(grads, backprop(graph_nodes, order, rules)):
            index = _wrong_node(graph_nodes, grads, expected)
            found = dict(node=graph_nodes[index][0], got=grads[index], expected=expected[index], **fields)
            if kind == "own":
                return Verdict.fail("mul_own_value", "value_backward.mul_own", **found)
            if kind == "no_upstream":
                return Verdict.fail("no_upstream", "value_backward.no_upstream", ops=_ops(ops), **found)
            return Verdict.fail("wrong_local", "value_backward.wrong_local", ops=_ops(ops), **found)
    index = _wrong_node(graph_nodes, grads, expected)
    return Verdict.fail("wrong_grad", "value_backward.wrong_grad", node=graph_nodes[index][0], out=output,
                        got=grads[index], expected=expected[index], **fields)
