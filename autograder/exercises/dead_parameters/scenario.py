"""The objects of a ``dead_parameters`` scenario (``spec.py`` says what it is), built from its data for the
kernel's observer and the judge alike. Kept apart from ``spec.py``, which the registry imports in
every process, the grader's own included: only the kernel and the judge need torch (a grading
worker that imported it spent ~1.9 s of CPU on it, twice a run)."""
from __future__ import annotations

import torch
from torch import nn

from ...wire.tensors import load_


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
