"""Draw the autograd graph behind a tensor with matplotlib only (no Graphviz binary needed).

The graph is read from the tensor itself: ``grad_fn`` and its ``next_functions``, down to
the ``AccumulateGrad`` nodes whose ``.variable`` is a leaf that requires grad.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import matplotlib.pyplot as plt
import torch

from .text import text

COLORS = {"result": "#cfe2ff", "op": "#e9ecef", "leaf": "#d1e7dd"}


@dataclass
class Graph:
    labels: dict = field(default_factory=dict)  # node key → label
    kinds: dict = field(default_factory=dict)  # node key → result | op | leaf
    edges: list = field(default_factory=list)  # (input key, output key)


def _leaf_label(tensor, names: dict) -> str:
    name = next((n for n, t in names.items() if t is tensor), "leaf")
    return text("graph.leaf_node", name=name)


def build(result: torch.Tensor, names: dict) -> Graph:
    """Nodes and edges of the graph that produced ``result``."""
    graph = Graph()
    root = "result"
    graph.labels[root] = text("graph.result_node", requires_grad=result.requires_grad,
                              is_leaf=result.is_leaf)
    graph.kinds[root] = "result"
    if result.grad_fn is None:
        return graph
    todo, seen = [(result.grad_fn, root)], set()
    while todo:
        fn, consumer = todo.pop()
        key = f"fn{id(fn)}"
        graph.edges.append((key, consumer))
        if key in seen:
            continue
        seen.add(key)
        if hasattr(fn, "variable"):
            graph.labels[key], graph.kinds[key] = _leaf_label(fn.variable, names), "leaf"
            continue
        graph.labels[key], graph.kinds[key] = type(fn).__name__, "op"
        todo.extend((child, key) for child, _ in fn.next_functions if child is not None)
    return graph


def _levels(graph: Graph) -> dict:
    """Depth of each node: its longest distance from the result."""
    depth = {"result": 0}
    changed = True
    while changed:
        changed = False
        for src, dst in graph.edges:
            if dst in depth and depth.get(src, -1) < depth[dst] + 1:
                depth[src] = depth[dst] + 1
                changed = True
    return depth


def draw(graph: Graph, title: str):
    depth = _levels(graph)
    rows: dict = {}
    for key in graph.labels:
        rows.setdefault(depth.get(key, 0), []).append(key)
    height = max(rows) + 1
    fig, ax = plt.subplots(figsize=(7, 1.2 + 1.1 * height))
    pos = {}
    for level, keys in rows.items():
        for i, key in enumerate(sorted(keys, key=lambda k: graph.labels[k])):
            pos[key] = ((i + 1) / (len(keys) + 1), 1 - (level + 0.5) / height)
    for src, dst in set(graph.edges):
        ax.annotate("", xy=pos[dst], xytext=pos[src],
                    arrowprops=dict(arrowstyle="->", color="#555", shrinkA=14, shrinkB=14))
    for key, (x, y) in pos.items():
        ax.text(x, y, graph.labels[key], ha="center", va="center", fontsize=9,
                bbox=dict(boxstyle="round,pad=0.4", fc=COLORS[graph.kinds[key]], ec="#333"))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def describe(graph: Graph) -> str:
    """The graph in one sentence: the caption under the picture."""
    one_line = {key: label.replace("\n", ", ") for key, label in graph.labels.items()}
    ops = sorted(one_line[k] for k in graph.labels if graph.kinds[k] == "op")
    leaves = sorted(graph.labels[k].split("\n")[0] for k in graph.labels if graph.kinds[k] == "leaf")
    if not ops and not leaves:
        return text("graph.caption_no_graph", result=one_line["result"])
    return text("graph.caption", result=one_line["result"], ops=", ".join(ops) or "-",
                leaves=", ".join(leaves) or "-")
