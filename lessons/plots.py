"""Figures for lesson 3. Each returns the figure and a caption that states what it shows.

The caption is the plot's text alternative: a reader who cannot see the figure gets
the same numbers from it.
"""
from __future__ import annotations


import matplotlib.pyplot as plt

from . import demos
from .text import text


def pile_up_figure(calls: int):
    data = demos.pile_up(calls)
    steps = list(range(1, calls + 1))
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(steps, data["without"], "o-", color="tab:red", label=text("pileup.without"))
    ax.plot(steps, data["with"], "s--", color="tab:blue", label=text("pileup.with"))
    ax.set(title=text("pileup.title"), xlabel=text("pileup.xlabel"), ylabel=text("pileup.ylabel"))
    ax.set_xticks(steps)
    ax.set_ylim(0, max(data["without"]) * 1.15)
    ax.legend(loc="upper left")
    fig.tight_layout()
    caption = text("pileup.caption", calls=calls, w=data["w"], piled=data["without"][-1],
                   single=data["with"][-1])
    return fig, caption


def training_figure(steps: int = 40, lr: float = 0.05, with_clear=None, without=None):
    """Loss curves with and without zero_grad(). The notebook passes the losses of its own
    visible loop (``with_clear``, ``without``); otherwise the same loop runs here."""
    if with_clear is None or without is None:
        with_clear = demos.train_regression(True, steps, lr)
        without = demos.train_regression(False, steps, lr)
    steps = len(with_clear)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2), sharey=True)
    for ax, losses, key, color in ((axes[0], with_clear, "training.title_with", "tab:blue"),
                                   (axes[1], without, "training.title_without", "tab:red")):
        ax.plot(range(1, steps + 1), losses, color=color)
        ax.set_yscale("log")
        ax.set(title=text(key), xlabel=text("training.xlabel"))
    axes[0].set_ylabel(text("training.ylabel"))
    fig.tight_layout()
    rises = sum(b > a for a, b in zip(without, without[1:]))
    caption = text("training.caption", lr=lr, steps=steps, final_with=with_clear[-1],
                   final_without=without[-1], rises=rises)
    return fig, caption


def health_figure():
    data = demos.gradient_health()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    units = data["unit_norms"]
    colors = ["tab:red" if n == 0 else "tab:gray" for n in units]
    axes[0].bar(range(1, len(units) + 1), units, color=colors)
    axes[0].set(title=text("health.title_dead"), xlabel=text("health.unit_xlabel"),
                ylabel=text("health.unit_ylabel"))
    axes[0].set_xticks(range(1, len(units) + 1))
    layers = range(1, len(data["healthy_norms"]) + 1)
    axes[1].semilogy(layers, list(data["healthy_norms"].values()), "o-", label=text("health.healthy"))
    axes[1].semilogy(layers, list(data["exploding_norms"].values()), "o-", color="tab:red",
                     label=text("health.exploding"))
    axes[1].set(title=text("health.title_exploding"), xlabel=text("health.xlabel"),
                ylabel=text("health.ylabel"))
    axes[1].legend()
    fig.tight_layout()
    healthy, exploding = data["healthy_norms"].values(), data["exploding_norms"].values()
    caption = text("health.caption", dead=data["dead_units"], units=data["hidden_units"],
                   depth=len(data["healthy_norms"]), healthy_min=min(healthy),
                   healthy_max=max(healthy), exploding_max=max(exploding),
                   ratio=max(exploding) / max(healthy))
    return fig, caption


# -- lesson 2 -----------------------------------------------------------------------------
EPS_GRID = [10.0 ** (k / 4) for k in range(-56, -3)]  # 1e-14 … 1e-1


def finite_difference_figure(name: str, eps: float):
    errors = demos.fd_errors(name, EPS_GRID)
    here = demos.fd_errors(name, [eps])
    floor = 1e-17  # an error of exactly 0 cannot sit on a log axis
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    ax.loglog(EPS_GRID, [max(e, floor) for e in errors["forward"]], label=text("fd.forward"))
    ax.loglog(EPS_GRID, [max(e, floor) for e in errors["central"]], label=text("fd.central"))
    ax.axvline(eps, color="gray", linestyle=":")
    ax.plot([eps, eps], [max(here["forward"][0], floor), max(here["central"][0], floor)], "ko")
    ax.set(title=text("fd.title", name=name), xlabel=text("fd.xlabel"), ylabel=text("fd.ylabel"))
    ax.legend(loc="upper center", fontsize=8)
    fig.tight_layout()
    best = min(zip(errors["forward"], EPS_GRID))[1]
    caption = text("fd.caption", name=name, eps=eps, forward=here["forward"][0],
                   central=here["central"][0], best=best)
    return fig, caption


# -- lesson 4 -----------------------------------------------------------------------------
BATCH_SIZES = [1, 4, 16, 64, 256, 1024]


def memory_figure(max_batch: int):
    sizes = [n for n in BATCH_SIZES if n <= max_batch]
    rows = demos.memory_by_batch(sizes)
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.2))
    for mode, style in (("grad", "o-"), ("no_grad", "s--")):
        left.plot(sizes, [r["bytes"] / 1e6 for r in rows[mode]], style, label=text(f"memory.{mode}"))
        right.plot(sizes, [r["seconds"] * 1e3 for r in rows[mode]], style, label=text(f"memory.{mode}"))
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xlabel(text("memory.xlabel"))
        ax.legend()
    left.set(title=text("memory.title_bytes"), ylabel="MB")
    right.set(title=text("memory.title_time"), ylabel="ms")
    fig.tight_layout()
    last = {mode: rows[mode][-1] for mode in rows}
    caption = text("memory.caption", batch=sizes[-1], tensors=last["grad"]["tensors"],
                   mb=last["grad"]["bytes"] / 1e6, no_grad_mb=last["no_grad"]["bytes"] / 1e6,
                   ms=last["grad"]["seconds"] * 1e3, no_grad_ms=last["no_grad"]["seconds"] * 1e3)
    return fig, caption
