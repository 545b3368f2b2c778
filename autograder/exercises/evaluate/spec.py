"""Lesson 4, exercise (c): ``evaluate(model, batches)``: accuracy in eval mode, without a graph,
with the model's mode put back. A scenario is a classifier with dropout, its state, the mode
it starts in and the batches (of ``sizes``)."""
from __future__ import annotations

import torch
from torch import nn

from ...wire.spec import Exercise
from ...wire.scenarios.models import fresh, load_state

EXERCISE = Exercise(
    "evaluate", lesson=4, letter="c", kind="function", answer=("evaluate",),
    cells=("evaluate", "evaluate_tests"), messages="inference",
    summary="Exercise 4(c): accuracy with eval() and no_grad(), mode restored.")


def make_classifier() -> nn.Module:
    return fresh(lambda: nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Dropout(0.5), nn.Linear(32, 3)))


def build(data: dict) -> tuple[nn.Module, list]:
    model = load_state(make_classifier(), data["state"]).train(data["spec"]["start"] == "train")
    return model, [(torch.tensor(x), torch.tensor(y)) for x, y in data["batches"]]
