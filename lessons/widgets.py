"""Widgets that let a student watch autograd work. Every plot comes with its caption.

A figure reaches the notebook as a PNG in an Image widget with its caption as text
under it (read by screen readers, and by tests): ``figure_box(fig, caption)``.
"""
from __future__ import annotations

import io
import os

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import display

import torch

from . import graph_view, plots
from .text import text


def grading() -> bool:
    """True while a grader runs the notebook (nbgrader's autograde or validate, or the
    autograder's re-check): nobody looks at the plots then, so they are not drawn."""
    return bool(os.environ.get("NBGRADER_EXECUTION") or os.environ.get("LESSONS_NO_PLOTS"))


def png(fig) -> bytes:
    """The figure as PNG bytes; the figure is closed, so nothing else draws it again."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    plt.close(fig)
    return buffer.getvalue()


def caption_html(caption: str) -> str:
    return f"<p class='lesson-caption'>{caption}</p>"


def figure_box(fig, caption: str) -> widgets.VBox:
    """A plot and its caption, stacked."""
    return widgets.VBox([widgets.Image(value=png(fig), format="png"),
                         widgets.HTML(caption_html(caption))])


def show(fig_and_caption) -> None:
    """Display a figure with its caption (nothing while nbgrader runs the notebook)."""
    if not grading():
        display(figure_box(*fig_and_caption()))


class PlotWidget(widgets.VBox):
    """Controls above a plot and its caption; any change of a control redraws the plot.

    Subclasses say which controls they have and how to make the figure from them
    (``figure()`` returns the figure and its caption)."""

    def __init__(self, controls: list, watched: list):
        self.plot = widgets.Image(format="png")
        self.caption = widgets.HTML()
        super().__init__([*controls, self.plot, self.caption])
        for control in watched:
            control.observe(lambda change: self.redraw(), names="value")
        self.redraw()

    def figure(self):
        raise NotImplementedError

    def redraw(self) -> None:
        if grading():
            return
        fig, caption = self.figure()
        if fig is not None:
            self.plot.value = png(fig)
        self.caption.value = caption_html(caption)


class GradPileUp(PlotWidget):
    """A slider for the number of backward() calls, and w.grad after each call,
    with and without clearing. Moving the slider reruns the real backward() calls."""

    def __init__(self, calls: int = 3, max_calls: int = 10):
        self.slider = widgets.IntSlider(value=calls, min=1, max=max_calls,
                                        description=text("pileup.slider"),
                                        style={"description_width": "initial"},
                                        continuous_update=False)
        super().__init__([self.slider], [self.slider])

    def figure(self):
        return plots.pile_up_figure(self.slider.value)


def training_demo(with_clear=None, without=None, lr: float = 0.05) -> None:
    """The same regression trained with and without zero_grad(), loss curves side by side:
    the losses of the notebook's own loop when given, else of ``demos.train_regression``."""
    show(lambda: plots.training_figure(lr=lr, with_clear=with_clear, without=without))


def gradient_health_demo() -> None:
    """Per-layer gradient norms: a dead ReLU unit, and exploding gradients."""
    show(plots.health_figure)


class GraphExplorer(PlotWidget):
    """Type or pick an expression in a, b and c; see the autograd graph PyTorch records.

    Tick a box to make that tensor require grad. The graph is rebuilt from the real
    result's grad_fn every time something changes."""

    PRESETS = ["a * b + c", "(a * b).sum()", "torch.sin(a) * b", "(a + b).detach() * c",
               "(a * c).exp().mean()"]

    def __init__(self, expression: str = "a * b + c"):
        self.preset = widgets.Dropdown(options=self.PRESETS, value=None,
                                       description=text("graph.preset"))
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

    def figure(self):
        names = self.tensors()
        try:
            result = eval(self.expression.value, {"torch": torch}, dict(names))  # the student's own expression
            if not isinstance(result, torch.Tensor):
                raise TypeError(type(result).__name__)
        except Exception as exc:  # a typo is part of exploring: say what went wrong
            return None, text("graph.error", error=f"{type(exc).__name__}: {exc}")
        graph = graph_view.build(result, names)
        title = text("graph.title", expression=self.expression.value)
        return graph_view.draw(graph, title), graph_view.describe(graph)


class FiniteDifference(PlotWidget):
    """A slider for the step size ε of a numerical derivative, and its error against
    autograd's exact derivative: too large an ε and the formula is wrong (truncation),
    too small and the subtraction loses its digits (round-off)."""

    def __init__(self, function: str = "sin(x)", eps: float = 1e-6):
        self.function = widgets.Dropdown(options=list(plots.demos.FUNCTIONS), value=function,
                                         description="f")
        self.slider = widgets.FloatLogSlider(value=eps, base=10, min=-14, max=-1, step=0.25,
                                             description="ε", readout_format=".0e",
                                             continuous_update=False)
        super().__init__([widgets.HBox([self.function, self.slider])], [self.function, self.slider])

    def figure(self):
        return plots.finite_difference_figure(self.function.value, self.slider.value)


class NoGradMemory(PlotWidget):
    """A batch-size slider; for each batch size up to it, a real forward pass is measured
    with and without grad: bytes autograd saves for backward, and time."""

    def __init__(self, max_batch: int = 256):
        self.slider = widgets.SelectionSlider(options=plots.BATCH_SIZES, value=max_batch,
                                              description=text("memory.slider"),
                                              style={"description_width": "initial"},
                                              continuous_update=False)
        super().__init__([self.slider], [self.slider])

    def figure(self):
        return plots.memory_figure(self.slider.value)


def dropout_demo() -> widgets.HTML:
    """Dropout in train() and eval() mode, and whether eval() turns off autograd (it does not)."""
    result = plots.demos.dropout_outputs()
    return widgets.HTML(caption_html(text("dropout.caption", **result)))
