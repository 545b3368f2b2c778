"""Lesson 4, exercise (a): ``predict(model, x)``: the model's output, with no graph recorded.
A scenario is a model (an MLP in train mode, or one with dropout or batch norm in eval mode),
its state and an input."""
from __future__ import annotations

import torch
from torch import nn

from ...wire.spec import Exercise
from ...wire.scenarios.models import fresh, load_state

EXERCISE = Exercise(
    "predict", lesson=4, letter="a", kind="function", answer=("predict",),
    cells=("predict", "predict_tests"), messages="inference",
    summary="Exercise 4(a): inference that records no graph.")


def make_model(kind: str) -> nn.Module:
    """``kind`` is "mlp", "dropout-eval" or "batchnorm-eval" (the last two start in eval mode:
    ``build``)."""
    if kind == "mlp":
        return fresh(lambda: nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)))
    if kind.startswith("dropout"):
        return fresh(lambda: nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 3)))
    return fresh(lambda: nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 3)))


def build(data: dict) -> tuple[nn.Module, torch.Tensor]:
    kind = data["spec"]["kind"]
    model = load_state(make_model(kind), data["state"]).train(not kind.endswith("-eval"))
    return model, torch.tensor(data["x"])
