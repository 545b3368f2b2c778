"""Lesson 3, exercise (c): ``fit_line(w, b, xs, ys, lr, steps)``: manual SGD on raw tensors,
clearing ``.grad`` by hand. A scenario is ``w``, ``b`` (holding stale gradients), the points
and the settings."""
from __future__ import annotations

import torch

from ...wire.spec import Exercise

EXERCISE = Exercise(
    "fit_line", lesson=3, letter="c", kind="function", answer=("fit_line",),
    cells=("fit_line", "fit_line_tests"), messages="manual",
    summary="Exercise 3(c): manual SGD on raw tensors, clearing .grad by hand.")


def tensors(data: dict) -> tuple:
    """w and b (holding their stale gradients), xs and ys."""
    w = torch.tensor(data["w"], requires_grad=True)
    b = torch.tensor(data["b"], requires_grad=True)
    w.grad, b.grad = torch.tensor(data["stale_w"]), torch.tensor(data["stale_b"])
    return w, b, torch.tensor(data["xs"]), torch.tensor(data["ys"])
