"""Lesson 3, exercise (c): ``fit_line(w, b, xs, ys, lr, steps)``: manual SGD on raw tensors,
clearing ``.grad`` by hand. A scenario is ``w``, ``b`` (holding stale gradients), the points
and the settings."""
from __future__ import annotations

from ...wire.spec import Exercise

EXERCISE = Exercise(
    "fit_line", lesson=3, letter="c", kind="function", answer=("fit_line",),
    cells=("fit_line", "fit_line_tests"),
    task=("ex-c",), messages="manual",
    summary="Exercise 3(c): manual SGD on raw tensors, clearing .grad by hand.")
