"""Lesson 4, exercise (a): ``predict(model, x)``: the model's output, with no graph recorded.
A scenario is a model (an MLP in train mode, or one with dropout or batch norm in eval mode),
its state and an input."""
from __future__ import annotations

from ...wire.spec import Exercise

EXERCISE = Exercise(
    "predict", lesson=4, letter="a", kind="function", answer=("predict",),
    cells=("predict", "predict_tests"),
    task=("ex-a",), messages="inference",
    summary="Exercise 4(a): inference that records no graph.")
