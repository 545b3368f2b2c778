"""Lesson 1, exercise (b): ``freeze_body(model)`` freezes the body, keeps the head trainable.

A scenario is a net (``kind``: an MLP, or one with batch norm in its body), every parameter's
value and a batch; the kernel freezes it with the student's function and takes one plain
gradient step (``LR``) on ``loss_of``; the judge takes the same step with the head alone.
"""
from __future__ import annotations

import torch
from torch import nn

from ...wire.spec import Exercise
from ...wire.tensors import load_

EXERCISE = Exercise(
    "freeze_body", lesson=1, letter="b", kind="function", answer=("freeze_body",),
    cells=("freeze_body", "freeze_body_tests"), messages="graph",
    summary="Exercise 1(b): only the head receives gradients.")

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
