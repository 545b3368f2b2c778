"""The objects of a ``evaluate`` scenario (``spec.py`` says what it is), built from its data for the
kernel's observer and the judge alike. Kept apart from ``spec.py``, which the registry imports in
every process, the grader's own included: only the kernel and the judge need torch (a grading
worker that imported it spent ~1.9 s of CPU on it, twice a run)."""
from __future__ import annotations

import torch
from torch import nn

from ...wire.scenarios.models import fresh, load_state


def make_classifier() -> nn.Module:
    return fresh(lambda: nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Dropout(0.5), nn.Linear(32, 3)))


def build(data: dict) -> tuple[nn.Module, list]:
    model = load_state(make_classifier(), data["state"]).train(data["spec"]["start"] == "train")
    return model, [(torch.tensor(x), torch.tensor(y)) for x, y in data["batches"]]
