"""The lessons' figures. Each comes with a caption that states what it shows.

The caption is the plot's text alternative: a reader who cannot see the figure gets
the same numbers from it.

A widget's plot has to follow the mouse while a slider is dragged, so it must redraw in a
few milliseconds (on Binder: about one CPU). Three things make that possible:

* each widget keeps **one figure** for its whole life (built outside pyplot, so nothing
  else holds on to it or shows it);
* its axes are **fixed** to fit every value the controls can take, so the axes, ticks,
  labels, title and legend never change: they are drawn once, kept as a picture (the
  *background*), and each redraw only paints the few moving artists over a copy of it
  (matplotlib calls this blitting);
* the pixels are encoded straight to PNG at a fast compression level.

The autograd graph (lesson 1) changes everywhere when a box is ticked, so it is drawn whole,
without axes, and its widget keeps the pictures it has drawn (see ``widgets.GraphExplorer``).
"""
from __future__ import annotations

import io

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from . import demos, fonts
from .text import text

fonts.use()  # plots in every language's script

DPI = 80


def new_figure(width: float, height: float) -> Figure:
    """An empty figure drawn by Agg, outside pyplot: pyplot does not keep it alive and the
    notebook does not display it by itself; it is freed with whoever holds it."""
    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def encode_png(canvas: FigureCanvasAgg) -> bytes:
    """The canvas's current pixels as PNG. zlib level 1 encodes these plots faster than the
    default level 6 (about 1.2–1.7× as measured here) into files at most a fifth larger."""
    width, height = canvas.get_width_height()
    image = Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    buffer = io.BytesIO()
    image.save(buffer, format="png", compress_level=1)
    return buffer.getvalue()


def png(fig: Figure) -> bytes:
    """Draw the whole figure and return it as PNG."""
    fig.canvas.draw()
    return encode_png(fig.canvas)


class LiveFigure:
    """A figure whose fixed parts are drawn once and whose moving artists are painted over
    a copy of them at each update."""

    def __init__(self, fig: Figure, moving: list):
        self.fig = fig
        self.moving = moving
        for artist in moving:
            artist.set_animated(True)  # a full draw leaves it out of the background
        self.background = None

    def redraw_background(self) -> None:
        """Call after changing a fixed part (a title, a curve, the limits)."""
        self.fig.canvas.draw()
        self.background = self.fig.canvas.copy_from_bbox(self.fig.bbox)

    def png(self) -> bytes:
        if self.background is None:
            self.redraw_background()
        self.fig.canvas.restore_region(self.background)
        for artist in self.moving:
            self.fig.draw_artist(artist)
        return encode_png(self.fig.canvas)


# -- lesson 3 -----------------------------------------------------------------------------
class PileUpPlot:
    """w.grad after each backward() call, without and with clearing in between.

    The axes already fit ``max_calls`` calls, so the red line visibly climbs as the
    slider moves while the blue one stays flat."""

    def __init__(self, max_calls: int):
        self.fig = new_figure(6, 3.2)
        ax = self.fig.add_subplot()
        self.without, = ax.plot([], [], "o-", color="tab:red", label=text("pileup.without"))
        self.cleared, = ax.plot([], [], "s--", color="tab:blue", label=text("pileup.with"))
        ax.set(title=text("pileup.title"), xlabel=text("pileup.xlabel"), ylabel=text("pileup.ylabel"))
        ax.set_xticks(range(1, max_calls + 1))
        ax.set_xlim(0.5, max_calls + 0.5)
        ax.set_ylim(0, max(demos.pile_up(max_calls)["without"]) * 1.15)
        ax.legend(loc="upper left")
        self.fig.tight_layout()
        self.live = LiveFigure(self.fig, [self.without, self.cleared])

    def draw(self, calls: int) -> tuple[bytes, str]:
        """The picture and caption after ``calls`` real backward() calls."""
        data = demos.pile_up(calls)
        steps = range(1, calls + 1)
        self.without.set_data(steps, data["without"])
        self.cleared.set_data(steps, data["with"])
        caption = text("pileup.caption", count=calls, calls=calls, w=data["w"], piled=data["without"][-1],
                       single=data["with"][-1])
        return self.live.png(), caption


def training_figure(steps: int = demos.TRAINING_STEPS, lr: float = 0.05, with_clear=None, without=None):
    """Loss curves with and without zero_grad(), on one pair of axes so that the student sees
    where each run is at every step. The notebook passes the losses of its own visible loop
    (``with_clear``, ``without``); otherwise the same loop runs here. The caption states what
    ``demos.training_summary`` reads from these very curves."""
    if with_clear is None or without is None:
        with_clear = demos.train_regression(True, steps, lr)
        without = demos.train_regression(False, steps, lr)
    facts = demos.training_summary(with_clear, without)
    fig = new_figure(9, 3.4)
    ax = fig.add_subplot()
    shown = range(1, facts["steps"] + 1)
    ax.plot(shown, with_clear, color="tab:blue", label=text("training.title_with"))
    ax.plot(shown, without, color="tab:red", label=text("training.title_without"))
    ax.set_yscale("log")
    ax.set(title=text("training.title", lr=lr), xlabel=text("training.xlabel"),
           ylabel=text("training.ylabel"))
    ax.legend(loc="lower left")
    fig.tight_layout()
    key = ("training.caption_diverged" if not facts["finite"]
           else "training.caption" if facts["swings"] else "training.caption_early")
    return fig, text(key, lr=lr, **facts)


def exploding_figure():
    """Per layer, for a net with well-scaled weights and one with weights 3× too large: the
    gradient flowing back into each layer's output (left: it grows on its way back to the
    input) and each weight's ``.grad`` (right: huge on every layer, growing in no direction)."""
    data = demos.exploding_gradients()
    fig = new_figure(10, 3.4)
    axes = fig.subplots(1, 2)
    layers = range(1, len(data["healthy"]["weights"]) + 1)
    for ax, kind in zip(axes, ("outputs", "weights")):
        ax.semilogy(layers, data["healthy"][kind], "o-", label=text("health.healthy"))
        ax.semilogy(layers, data["exploding"][kind], "o-", color="tab:red", label=text("health.exploding"))
        ax.set(title=text(f"health.title_{kind}"), xlabel=text("health.xlabel"),
               ylabel=text("health.ylabel"))
        ax.set_xticks(list(layers))
        ax.legend()
    fig.tight_layout()
    return fig, text("health.caption", **exploding_facts(data))


def exploding_facts(data: dict) -> dict:
    """The numbers the exploding-gradients caption states, read from the data it plots."""
    outputs, weights = data["exploding"]["outputs"], data["exploding"]["weights"]
    depth = len(outputs)
    return {"depth": depth, "last": outputs[-1], "first": outputs[0],
            "growth": (outputs[0] / outputs[-1]) ** (1 / (depth - 1)),
            "weights_min": min(weights), "weights_max": max(weights),
            "healthy_max": max(data["healthy"]["weights"])}


# -- lesson 2 -----------------------------------------------------------------------------
EPS_GRID = [10.0 ** (k / 4) for k in range(-56, -3)]  # 1e-14 … 1e-1, the ε slider's own steps
ERROR_FLOOR = 1e-17  # an error of exactly 0 cannot sit on a log axis


def _on_log_axis(errors: list) -> list:
    return [max(e, ERROR_FLOOR) for e in errors]


class FiniteDifferencePlot:
    """The error of the forward and central differences of one function against ε, and a
    marker at the chosen ε. The curves (and the axes) change only with the function; moving
    ε moves only the marker."""

    def __init__(self):
        self.fig = new_figure(6.5, 3.4)
        self.ax = self.fig.add_subplot()
        self.forward, = self.ax.loglog([], [], label=text("fd.forward"))
        self.central, = self.ax.loglog([], [], label=text("fd.central"))
        self.ax.set_xlim(EPS_GRID[0], EPS_GRID[-1])
        self.step = self.ax.axvline(1e-6, color="gray", linestyle=":")
        self.points, = self.ax.plot([], [], "ko")
        self.ax.set(xlabel=text("fd.xlabel"), ylabel=text("fd.ylabel"))
        self.ax.legend(loc="upper center", fontsize=8)
        self.live = LiveFigure(self.fig, [self.step, self.points])
        self.function = None
        self.best = None

    def _show_function(self, name: str) -> None:
        """Draw the error curves of ``name`` over the whole ε range: the new background."""
        errors = demos.fd_errors(name, EPS_GRID)
        self.forward.set_data(EPS_GRID, _on_log_axis(errors["forward"]))
        self.central.set_data(EPS_GRID, _on_log_axis(errors["central"]))
        shown = _on_log_axis(errors["forward"] + errors["central"])
        self.ax.set_ylim(min(shown) / 3, max(shown) * 3)
        self.ax.set_title(text("fd.title", name=name))
        self.fig.tight_layout()
        self.live.redraw_background()
        self.function = name
        self.best = min(zip(errors["forward"], EPS_GRID))[1]

    def draw(self, name: str, eps: float) -> tuple[bytes, str]:
        if name != self.function:
            self._show_function(name)
        here = demos.fd_errors(name, [eps])
        forward, central = here["forward"][0], here["central"][0]
        self.step.set_xdata([eps, eps])
        self.points.set_data([eps, eps], _on_log_axis([forward, central]))
        caption = text("fd.caption", name=name, eps=eps, forward=forward, central=central,
                       best=self.best)
        return self.live.png(), caption


# -- lesson 4 -----------------------------------------------------------------------------
BATCH_SIZES = [1, 4, 16, 64, 256, 1024]


class MemoryPlot:
    """Bytes that recording keeps for backward (beyond the input and the weights, which exist
    anyway) and forward time, with and without grad, against the batch size. Every batch size is measured once, when the plot is made (about 0.1 s on one
    thread); the slider then shows the measurements up to the chosen batch size on axes
    that fit them all."""

    MODES = (("grad", "o-"), ("no_grad", "s--"))

    def __init__(self):
        self.rows = demos.memory_by_batch(BATCH_SIZES)
        self.fig = new_figure(9, 3.2)
        left, right = self.fig.subplots(1, 2)
        self.lines = {}  # (mode, panel) → line
        for mode, style in self.MODES:
            self.lines[mode, "bytes"], = left.plot([], [], style, label=text(f"memory.{mode}"))
            self.lines[mode, "time"], = right.plot([], [], style, label=text(f"memory.{mode}"))
        left.set(title=text("memory.title_bytes"), ylabel=text("memory.ylabel_bytes"))
        right.set(title=text("memory.title_time"), ylabel=text("memory.ylabel_time"))
        for ax, panel in ((left, "bytes"), (right, "time")):
            ax.set_xscale("log", base=2)
            ax.set_xlim(BATCH_SIZES[0] / 1.5, BATCH_SIZES[-1] * 1.5)
            ax.set_ylim(0, max(self._values(mode, panel)[-1] for mode, _ in self.MODES) * 1.1)
            ax.set_xlabel(text("memory.xlabel"))
            ax.legend()
        self.fig.tight_layout()
        self.live = LiveFigure(self.fig, list(self.lines.values()))

    def _values(self, mode: str, panel: str) -> list:
        """Megabytes or milliseconds, one per batch size."""
        if panel == "bytes":
            return [row["bytes"] / 1e6 for row in self.rows[mode]]
        return [row["seconds"] * 1e3 for row in self.rows[mode]]

    def draw(self, max_batch: int) -> tuple[bytes, str]:
        shown = BATCH_SIZES.index(max_batch) + 1
        for (mode, panel), line in self.lines.items():
            line.set_data(BATCH_SIZES[:shown], self._values(mode, panel)[:shown])
        last = {mode: self.rows[mode][shown - 1] for mode in self.rows}
        caption = text("memory.caption", batch=max_batch, tensors=last["grad"]["tensors"],
                       mb=last["grad"]["bytes"] / 1e6, no_grad_mb=last["no_grad"]["bytes"] / 1e6,
                       ms=last["grad"]["seconds"] * 1e3,
                       no_grad_ms=last["no_grad"]["seconds"] * 1e3)
        return self.live.png(), caption
