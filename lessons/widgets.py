"""Widgets that let a student watch autograd work. Every plot comes with its caption.

``show(fig, caption)`` is the one way a figure reaches the notebook: the picture in an
Output widget, the caption as text under it (read by screen readers, and by tests).
"""
from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import display

from . import plots
from .text import text


def figure_box(fig, caption: str) -> widgets.VBox:
    """A plot and its caption, stacked; the figure is closed once drawn."""
    out = widgets.Output()
    with out:
        display(fig)
    plt.close(fig)
    return widgets.VBox([out, widgets.HTML(f"<p class='lesson-caption'>{caption}</p>")])


def show(fig, caption: str) -> None:
    display(figure_box(fig, caption))


class GradPileUp(widgets.VBox):
    """A slider for the number of backward() calls, and w.grad after each call,
    with and without clearing. Moving the slider reruns the real backward() calls."""

    def __init__(self, calls: int = 3, max_calls: int = 10):
        self.slider = widgets.IntSlider(value=calls, min=1, max=max_calls,
                                        description=text("pileup.slider"),
                                        style={"description_width": "initial"},
                                        continuous_update=False)
        self.plot = widgets.Output()
        self.caption = widgets.HTML()
        super().__init__([self.slider, self.plot, self.caption])
        self.slider.observe(lambda change: self.redraw(), names="value")
        self.redraw()

    def redraw(self) -> None:
        fig, caption = plots.pile_up_figure(self.slider.value)
        with self.plot:
            self.plot.clear_output(wait=True)
            display(fig)
        plt.close(fig)
        self.caption.value = f"<p class='lesson-caption'>{caption}</p>"


def training_demo() -> None:
    """The same regression trained with and without zero_grad(), loss curves side by side."""
    show(*plots.training_figure())


def gradient_health_demo() -> None:
    """Per-layer gradient norms: a dead ReLU unit, and exploding gradients."""
    show(*plots.health_figure())
