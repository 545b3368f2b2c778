"""Widgets that let a student watch autograd work. Every plot comes with its caption.

A figure reaches the notebook as a PNG in an Image widget with its caption as text
under it (read by screen readers, and by tests): ``figure_box(fig, caption)``.
"""
from __future__ import annotations

import io

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import display

from . import plots
from .text import text


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
        self.plot = widgets.Image(format="png")
        self.caption = widgets.HTML()
        super().__init__([self.slider, self.plot, self.caption])
        self.slider.observe(lambda change: self.redraw(), names="value")
        self.redraw()

    def redraw(self) -> None:
        fig, caption = plots.pile_up_figure(self.slider.value)
        self.plot.value = png(fig)
        self.caption.value = caption_html(caption)


def training_demo() -> None:
    """The same regression trained with and without zero_grad(), loss curves side by side."""
    show(*plots.training_figure())


def gradient_health_demo() -> None:
    """Per-layer gradient norms: a dead ReLU unit, and exploding gradients."""
    show(*plots.health_figure())
