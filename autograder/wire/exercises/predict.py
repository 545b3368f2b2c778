"""Lesson 4, exercise (a): ``predict(model, x)``: the model's output, with no graph recorded.
A scenario is a model (an MLP, or one with batch norm in eval mode), its state and an input."""
from __future__ import annotations

import torch
from torch import nn

from ..spec import Exercise
from ._models import fresh, load_state

EXERCISE = Exercise(
    "predict", lesson=4, letter="a", kind="function", answer=("predict",),
    cells=("predict", "predict_tests"), messages="inference",
    summary="Exercise 4(a): inference that records no graph.")


def make_model(kind: str) -> nn.Module:
    if kind == "mlp":
        return fresh(lambda: nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)))
    return fresh(lambda: nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 3)))


def build(data: dict) -> tuple[nn.Module, torch.Tensor]:
    model = load_state(make_model(data["spec"]["kind"]), data["state"])
    if data["spec"]["kind"] != "mlp":
        model.eval()
    return model, torch.tensor(data["x"])
