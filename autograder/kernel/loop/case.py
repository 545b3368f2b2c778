"""A training-loop scenario (data from the judge) turned into the objects a loop runs on.

The same scenario can be rebuilt as often as needed: for the student's run and for
the reference gradients the diagnosis compares each step with.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ...wire.scenarios import training_loop
from ...wire.tensors import load_


@dataclass
class LoopCase:
    data: dict  # the scenario, as the judge sent it

    def __post_init__(self):
        self.params, self.batches, self.stale = training_loop.tensors_of(self.data)

    @property
    def spec(self) -> dict:
        return self.data["spec"]

    @property
    def n_batches(self) -> int:
        return self.spec["n_batches"]

    @property
    def accum_steps(self) -> int:
        return self.spec.get("accum_steps", 1)

    @property
    def as_generator(self) -> bool:
        return bool(self.spec.get("as_generator"))

    @property
    def n_steps(self) -> int:
        return training_loop.n_steps(self.spec)

    def group(self, step: int) -> list:
        return training_loop.group(self.spec, step)

    def make_model(self) -> nn.Module:
        model = training_loop.make_model()
        load_(model.parameters(), self.params)
        return model

    def make_batches(self) -> list:
        return [(x.clone(), y.clone()) for x, y in self.batches]

    def add_stale_gradients(self, model: nn.Module) -> None:
        """Fill .grad as an earlier epoch or a debugging backward() would have left it."""
        if self.stale is not None:
            for p, g in zip(model.parameters(), self.stale):
                p.grad = g.clone()

    def make_optimizer(self, params) -> torch.optim.Optimizer:
        return training_loop.make_optimizer(self.spec, params)

    def make_loss_fn(self) -> nn.Module:
        return nn.MSELoss()
