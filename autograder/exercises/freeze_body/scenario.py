"""The objects of a ``freeze_body`` scenario (``spec.py`` says what it is), built from its data for the
kernel's observer and the judge alike. Kept apart from ``spec.py``, which the registry imports in
every process, the grader's own included: only the kernel and the judge need torch (a grading
worker that imported it spent ~1.9 s of CPU on it, twice a run)."""
from __future__ import annotations

import torch
from torch import nn

from ...wire.tensors import load_

LR = 0.1


class Net(nn.Module):
    def __init__(self, body: nn.Module, head: nn.Module):
        super().__init__()
        self.body, self.head = body, head

    def forward(self, x):
        return self.head(self.body(x))


def make_net(kind: str) -> Net:
    """The net of a scenario kind, with PyTorch's default initialisation (the scenario then
    overwrites every value), built without touching the caller's random state."""
    with torch.random.fork_rng(devices=[]):
        if kind == "mlp":
            return Net(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU()),
                       nn.Linear(8, 2))
        return Net(nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Tanh()),
                   nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2)))


def build(data: dict) -> tuple[Net, torch.Tensor]:
    net = make_net(data["spec"]["kind"])
    load_([p for _, p in net.named_parameters()], [torch.tensor(data["params"][n]) for n, _ in net.named_parameters()])
    return net, torch.tensor(data["x"])


def loss_of(net: nn.Module, x: torch.Tensor) -> torch.Tensor:
    return net(x).pow(2).mean()
