"""The objects of a ``predict`` scenario (``spec.py`` says what it is), built from its data for the
kernel's observer and the judge alike. Kept apart from ``spec.py``, which the registry imports in
every process, the grader's own included: only the kernel and the judge need torch (a grading
worker that imported it spent ~1.9 s of CPU on it, twice a run)."""
from __future__ import annotations

import torch
from torch import nn

from ...wire.scenarios.models import fresh, load_state


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
