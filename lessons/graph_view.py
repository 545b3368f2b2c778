"""Draw the autograd graph behind a tensor with matplotlib only (no Graphviz binary needed).

The graph is read from the tensor itself: ``grad_fn`` and its ``next_functions``, down to
the ``AccumulateGrad`` nodes whose ``.variable`` is a leaf that requires grad.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch

from . import fonts
from .text import text

fonts.use()  # plots in every language's script

COLORS = {"result": "#cfe2ff", "op": "#e9ecef", "leaf": "#d1e7dd"}


@dataclass
class Graph:
    labels: dict = field(default_factory=dict)  # node key → label
    kinds: dict = field(default_factory=dict)  # node key → result | op | leaf
    edges: list = field(default_factory=list)  # (input key, output key)

    def shape(self) -> tuple:
        """What the picture shows, without the run-specific node keys: two runs of the same
        expression with the same flags give the same shape (and the same picture)."""
        number = {key: i for i, key in enumerate(self.labels)}
        return (tuple(self.labels.values()), tuple(self.kinds.values()),
                tuple(sorted((number[src], number[dst]) for src, dst in self.edges)))


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


TITLE_SPACE = 0.4  # inches above the graph for its title


def _rows(graph: Graph) -> list:
    """The node keys in rows, the result's row first: a node sits one row below its
    furthest consumer, and a row is in the order of its labels."""
    depth = _levels(graph)
    rows: dict = {}
    for key in graph.labels:
        rows.setdefault(depth.get(key, 0), []).append(key)
    return [sorted(rows[level], key=lambda k: graph.labels[k]) for level in sorted(rows)]


def draw(graph: Graph, title: str, fig: Figure) -> None:
    """Draw the graph onto ``fig`` (whatever it showed goes): boxes, arrows from each input
    to its consumer, the result on top. Drawn in figure coordinates, with no axes."""
    rows = _rows(graph)
    fig.clear()
    fig.set_size_inches(7, 1.2 + 1.1 * len(rows))
    top = 1 - TITLE_SPACE / fig.get_figheight()
    pos = {key: ((i + 1) / (len(keys) + 1), top * (1 - (level + 0.5) / len(rows)))
           for level, keys in enumerate(rows) for i, key in enumerate(keys)}
    for src, dst in set(graph.edges):
        fig.add_artist(FancyArrowPatch(pos[src], pos[dst], arrowstyle="->", color="#555",
                                       shrinkA=14, shrinkB=14, mutation_scale=10,
                                       transform=fig.transFigure))
    for key, (x, y) in pos.items():
        fig.text(x, y, graph.labels[key], ha="center", va="center", fontsize=9,
                 bbox=dict(boxstyle="round,pad=0.4", fc=COLORS[graph.kinds[key]], ec="#333"))
    fig.text(0.5, 1 - TITLE_SPACE / 2 / fig.get_figheight(), title, ha="center", va="center",
             fontsize=10)


def describe(graph: Graph) -> str:
    """The graph in one sentence: the caption under the picture."""
    one_line = {key: label.replace("\n", ", ") for key, label in graph.labels.items()}
    ops = sorted(one_line[k] for k in graph.labels if graph.kinds[k] == "op")
    leaves = sorted(graph.labels[k].split("\n")[0] for k in graph.labels if graph.kinds[k] == "leaf")
    if not ops and not leaves:
        return text("graph.caption_no_graph", result=one_line["result"])
    return text("graph.caption", result=one_line["result"], ops=", ".join(ops) or "-",
                leaves=", ".join(leaves) or "-")


# -- a graph of scalars with each node's data and grad (lesson 2, section 3 and exercise (d)) ----
# micrograd (github.com/karpathy/micrograd) draws the graph of its ``Value`` so: a box per value
# with its name, data and grad, a small circle per operation, inputs on the left.

VALUE_COLORS = {"leaf": "#d1e7dd", "op": "#e9ecef", "result": "#cfe2ff",
                "changed": "#fff3cd", "wrong": "#f8d7da"}


def value_label(name: str, data: float, grad: float) -> str:
    """A node's box: its name, ``data`` and ``grad`` (attribute names, the same in every language)."""
    return f"{name}\ndata {data:.4g}\ngrad {grad:.4g}"


def value_positions(inputs: list) -> tuple[dict, float]:
    """Where each node sits, in figure coordinates, and the width of a column, for a graph given
    as each node's inputs
    (indices of earlier nodes; a leaf has none). A computed node is one column right of its
    furthest input, a leaf one column left of its first consumer; leaves are spread top to bottom
    in the order they appear and a computed node sits at the mean height of its inputs."""
    column = {}
    for i, ins in enumerate(inputs):
        if ins:
            column[i] = 1 + max(column.get(j, 0) for j in ins)
    for i, ins in enumerate(inputs):
        if not ins:
            consumers = [column[k] for k, other in enumerate(inputs) if i in other]
            column[i] = min(consumers, default=1) - 1
    leaves = [i for i, ins in enumerate(inputs) if not ins]
    height = {i: 0.82 - 0.64 * n / max(1, len(leaves) - 1) for n, i in enumerate(leaves)}
    for i, ins in enumerate(inputs):
        if ins:
            height[i] = sum(height[j] for j in ins) / len(ins)
    width = max(column.values()) + 1
    return {i: ((column[i] + 0.5) / width, height[i]) for i in range(len(inputs))}, 1 / width


def draw_values(nodes: list, data: list, grads: list, title: str, fig: Figure,
                ran: int | None = None, changed=frozenset(), wrong=frozenset()) -> None:
    """Draw a graph of scalars onto ``fig``: ``nodes`` is ``[(name, op, inputs)]`` in the order they
    were made (a leaf has op None), ``data`` and ``grads`` each node's numbers. The node whose
    ``_backward()`` ran last (``ran``) is outlined, the boxes whose grad it ``changed`` are yellow,
    ``wrong`` ones (a student's gradient that is not the chain rule's) red."""
    fig.clear()
    fig.set_size_inches(8.4, 3.4)
    pos, column = value_positions([ins for _, _, ins in nodes])
    gap = column / 2  # the operation's circle: half-way from the previous column
    for i, (name, op, ins) in enumerate(nodes):
        x, y = pos[i]
        if ins:
            circle = (x - gap, y)
            fig.text(*circle, op, ha="center", va="center", fontsize=10,
                     bbox=dict(boxstyle="circle,pad=0.3", fc=VALUE_COLORS["op"], ec="#333"))
            fig.add_artist(FancyArrowPatch(circle, (x, y), arrowstyle="->", color="#555", shrinkA=9,
                                           shrinkB=30, mutation_scale=9, transform=fig.transFigure))
            bends = [0.0] if len(set(ins)) == len(ins) else [0.25, -0.25]  # a value used twice: two arrows
            for k, j in enumerate(ins):
                bend = bends[k] if len(bends) > 1 else 0.0
                fig.add_artist(FancyArrowPatch(pos[j], circle, arrowstyle="->", color="#555", shrinkA=30,
                                               shrinkB=9, mutation_scale=9, connectionstyle=f"arc3,rad={bend}",
                                               transform=fig.transFigure))
        kind = "leaf" if not ins else ("result" if i == len(nodes) - 1 else "op")
        fill = VALUE_COLORS["wrong" if i in wrong else "changed" if i in changed else kind]
        edge, line = ("#d9480f", 2.4) if i == ran else ("#b02a37", 1.8) if i in wrong else ("#333", 1.0)
        fig.text(x, y, value_label(name, data[i], grads[i]), ha="center", va="center", fontsize=8.5,
                 family="monospace", linespacing=1.3,
                 bbox=dict(boxstyle="round,pad=0.35", fc=fill, ec=edge, lw=line))
    fig.text(0.5, 0.95, title, ha="center", va="center", fontsize=10)
