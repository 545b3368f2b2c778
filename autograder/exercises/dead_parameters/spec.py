"""Lesson 3, practice exercise (Going further): ``dead_parameters(model)``: after
``loss.backward()``, the names of the parameters that received no gradient. A scenario is a net
with one hidden ReLU layer made dead (a large negative bias), or none, and a head the forward
pass never uses (``aux``)."""
from __future__ import annotations

import torch
from torch import nn

from ...wire.spec import Exercise
from ...wire.tensors import load_

EXERCISE = Exercise(
    "dead_parameters", lesson=3, letter="d", kind="function", answer=("dead_parameters",),
    cells=("dead_parameters", "dead_parameters_check"), messages="debug", practice=True,
    summary="Practice exercise 3(d): reading .grad to find the parameters that received no gradient.")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                                  nn.Linear(16, 16), nn.ReLU())
        self.head = nn.Linear(16, 2)
        self.aux = nn.Linear(16, 2)  # a head the forward pass never uses

    def forward(self, x):
        return self.head(self.body(x))


def make_net() -> Net:
    with torch.random.fork_rng(devices=[]):
        return Net()


def after_backward(data: dict) -> Net:
    """The net of a scenario after one backward pass of its loss."""
    net = make_net()
    load_([p for _, p in net.named_parameters()], [torch.tensor(data["params"][n]) for n, _ in net.named_parameters()])
    nn.functional.mse_loss(net(torch.tensor(data["x"])), torch.tensor(data["y"])).backward()
    return net
