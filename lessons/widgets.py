"""Widgets that let a student watch autograd work. Every plot comes with its caption.

A figure reaches the notebook as a PNG in an Image widget with its caption as text
under it (read by screen readers, and by tests). The sliders redraw while they are
dragged: each widget keeps one figure and repaints only what moved (see ``plots``).
"""
from __future__ import annotations

import os
from functools import cached_property

import ipywidgets as widgets
import torch
from IPython.display import display

from . import graph_view, plots
from .text import text


def grading() -> bool:
    """True while a grader runs the notebook (nbgrader's autograde or validate, or the
    autograder's re-check): nobody looks at the plots then, so they are not drawn."""
    return bool(os.environ.get("NBGRADER_EXECUTION") or os.environ.get("LESSONS_NO_PLOTS"))


def caption_html(caption: str) -> str:
    return f"<p class='lesson-caption'>{caption}</p>"


def figure_box(fig, caption: str) -> widgets.VBox:
    """A plot and its caption, stacked."""
    return widgets.VBox([widgets.Image(value=plots.png(fig), format="png"),
                         widgets.HTML(caption_html(caption))])


def show(fig_and_caption) -> None:
    """Display a figure with its caption (nothing while nbgrader runs the notebook)."""
    if not grading():
        display(figure_box(*fig_and_caption()))


class PlotWidget(widgets.VBox):
    """Controls above a plot and its caption; any change of a control redraws the plot.

    Subclasses say which controls they have and how to draw the picture from them
    (``draw()`` returns the PNG, or None to keep the last one, and the caption). Each keeps
    its figure in ``figure``, made at the first redraw: never while a grader runs."""

    def __init__(self, controls: list, watched: list):
        self.plot = widgets.Image(format="png")
        self.caption = widgets.HTML()
        super().__init__([*controls, self.plot, self.caption])
        for control in watched:
            control.observe(lambda change: self.redraw(), names="value")
        self.redraw()

    def draw(self) -> tuple[bytes | None, str]:
        raise NotImplementedError

    def redraw(self) -> None:
        if grading():
            return
        picture, caption = self.draw()
        if picture is not None:
            self.plot.value = picture
        self.caption.value = caption_html(caption)


class GradPileUp(PlotWidget):
    """A slider for the number of backward() calls, and w.grad after each call,
    with and without clearing. Moving the slider reruns the real backward() calls."""

    def __init__(self, calls: int = 3, max_calls: int = 10):
        self.slider = widgets.IntSlider(value=calls, min=1, max=max_calls,
                                        description=text("pileup.slider"),
                                        style={"description_width": "initial"},
                                        continuous_update=True)  # redraws while dragged
        super().__init__([self.slider], [self.slider])

    @cached_property
    def figure(self) -> plots.PileUpPlot:
        return plots.PileUpPlot(self.slider.max)

    def draw(self):
        return self.figure.draw(self.slider.value)


def training_demo(with_clear=None, without=None, lr: float = 0.05) -> None:
    """The same regression trained with and without zero_grad(), both loss curves on one plot:
    the losses of the notebook's own loop when given, else of ``demos.train_regression``."""
    show(lambda: plots.training_figure(lr=lr, with_clear=with_clear, without=without))


def exploding_gradients_demo() -> None:
    """Per-layer gradient norms of a deep net with exploding gradients: the gradient flowing
    back between layers grows toward the input, the weights' .grad is huge on every layer."""
    show(plots.exploding_figure)


class GraphExplorer(PlotWidget):
    """Type or pick an expression in a, b and c; see the autograd graph PyTorch records.

    Tick a box to make that tensor require grad. The graph is rebuilt from the real
    result's grad_fn every time something changes."""

    PRESETS = ["a * b + c", "(a * b).sum()", "torch.sin(a) * b", "(a + b).detach() * c",
               "(a * c).exp().mean()"]
    KEPT_PICTURES = 64  # pictures already drawn, about 25 kB each

    def __init__(self, expression: str = "a * b + c"):
        self.pictures = {}  # (graph shape, title) → PNG
        self.preset = widgets.Dropdown(options=self.PRESETS, value=None,
                                       description=text("graph.preset"))
        # redrawn on Enter or leaving the box, not at every keystroke of a half-typed expression
        self.expression = widgets.Text(value=expression, description=text("graph.expression"),
                                       continuous_update=False)
        self.flags = {name: widgets.Checkbox(value=name != "b", indent=False,
                                             description=text("graph.requires", name=name))
                      for name in "abc"}
        self.preset.observe(self._use_preset, names="value")
        super().__init__([widgets.HBox([self.preset, self.expression]),
                          widgets.HBox(list(self.flags.values()))],
                         [self.expression, *self.flags.values()])

    def _use_preset(self, change) -> None:
        if change["new"]:
            self.expression.value = change["new"]

    def tensors(self) -> dict:
        return {name: torch.tensor([1.0, 2.0], requires_grad=flag.value)
                for name, flag in self.flags.items()}

    @cached_property
    def figure(self):
        return plots.new_figure(7, 2)

    def picture(self, graph: graph_view.Graph) -> bytes:
        """The graph as PNG. A graph of the same shape under the same title (say, after a box
        is ticked and unticked again) reuses the picture drawn the first time."""
        title = text("graph.title", expression=self.expression.value)
        key = (graph.shape(), title)
        if key not in self.pictures:
            if len(self.pictures) >= self.KEPT_PICTURES:
                del self.pictures[next(iter(self.pictures))]  # the oldest
            graph_view.draw(graph, title, self.figure)
            self.pictures[key] = plots.png(self.figure)
        return self.pictures[key]

    def draw(self):
        names = self.tensors()
        try:
            result = eval(self.expression.value, {"torch": torch}, dict(names))  # the student's own expression
            if not isinstance(result, torch.Tensor):
                raise TypeError(type(result).__name__)
        except Exception as exc:  # a typo is part of exploring: say what went wrong
            return None, text("graph.error", error=f"{type(exc).__name__}: {exc}")
        graph = graph_view.build(result, names)
        return self.picture(graph), graph_view.describe(graph)


class FiniteDifference(PlotWidget):
    """A slider for the step size ε of a numerical derivative, and its error against
    autograd's exact derivative: too large an ε and the formula is wrong (truncation),
    too small and the subtraction loses its digits (round-off)."""

    def __init__(self, function: str = "sin(x)", eps: float = 1e-6):
        self.function = widgets.Dropdown(options=list(plots.demos.FUNCTIONS), value=function,
                                         description=text("fd.function"))
        self.slider = widgets.FloatLogSlider(value=eps, base=10, min=-14, max=-1, step=0.25,
                                             description=text("fd.slider"), readout_format=".0e",
                                             continuous_update=True)
        super().__init__([widgets.HBox([self.function, self.slider])], [self.function, self.slider])

    @cached_property
    def figure(self) -> plots.FiniteDifferencePlot:
        return plots.FiniteDifferencePlot()

    def draw(self):
        return self.figure.draw(self.function.value, self.slider.value)


class NoGradMemory(PlotWidget):
    """A batch-size slider. Every batch size is measured once, for real, when the widget is
    made: a forward pass with and without grad, the bytes autograd saves for backward (seen
    through saved_tensors_hooks) and the time. The plot shows them up to the chosen size."""

    def __init__(self, max_batch: int = 256):
        self.slider = widgets.SelectionSlider(options=plots.BATCH_SIZES, value=max_batch,
                                              description=text("memory.slider"),
                                              style={"description_width": "initial"},
                                              continuous_update=True)
        super().__init__([self.slider], [self.slider])

    @cached_property
    def figure(self) -> plots.MemoryPlot:
        return plots.MemoryPlot()

    def draw(self):
        return self.figure.draw(self.slider.value)


def dropout_demo() -> widgets.HTML:
    """Dropout in train() and eval() mode, and whether eval() turns off autograd (it does not)."""
    result = plots.demos.dropout_outputs()
    return widgets.HTML(caption_html(text("dropout.caption", **result)))
