"""Lesson 4, exercise (c): ``evaluate(model, batches)``: accuracy in eval mode, without a graph,
with the model's mode put back. A scenario is a classifier with dropout, its state, the mode
it starts in and the batches (of ``sizes``)."""
from __future__ import annotations

from ...wire.spec import Exercise

EXERCISE = Exercise(
    "evaluate", lesson=4, letter="c", kind="function", answer=("evaluate",),
    cells=("evaluate", "evaluate_tests"),
    task=("ex-c",), messages="inference",
    summary="Exercise 4(c): accuracy with eval() and no_grad(), mode restored.")
