"""The grader's own models, data and optimizers: what a student's loop is run on.

A case is a recipe, so the same model, batches and optimizer can be rebuilt for the
student's run, for the reference run and for computing reference gradients.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class LoopCase:
    name: str
    seed: int
    n_batches: int
    batch_size: int = 8
    optimizer: str = "sgd"  # sgd | momentum | adam
    lr: float = 0.1
    stale: bool = True  # parameters hold gradients before the student's function runs
    as_generator: bool = False  # hand the batches over as a one-shot generator
    accum_steps: int = 1

    def make_model(self) -> nn.Module:
        torch.manual_seed(self.seed)
        return nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))

    def make_batches(self) -> list:
        gen = torch.Generator().manual_seed(self.seed + 1)
        true_w = torch.tensor([[1.5], [-2.0], [0.5]])
        batches = []
        for _ in range(self.n_batches):
            x = torch.randn(self.batch_size, 3, generator=gen)
            y = x @ true_w + 0.3 + 0.1 * torch.randn(self.batch_size, 1, generator=gen)
            batches.append((x, y))
        return batches

    def make_optimizer(self, params) -> torch.optim.Optimizer:
        if self.optimizer == "sgd":
            return torch.optim.SGD(params, lr=self.lr)
        if self.optimizer == "momentum":
            return torch.optim.SGD(params, lr=self.lr, momentum=0.9)
        if self.optimizer == "adam":
            return torch.optim.Adam(params, lr=self.lr)
        raise ValueError(self.optimizer)

    def make_loss_fn(self) -> nn.Module:
        return nn.MSELoss()

    def add_stale_gradients(self, model: nn.Module) -> None:
        """Fill .grad as an earlier epoch or a debugging backward() would have left it."""
        gen = torch.Generator().manual_seed(self.seed + 2)
        for p in model.parameters():
            p.grad = torch.randn(p.shape, generator=gen)

    @property
    def n_steps(self) -> int:
        return self.n_batches // self.accum_steps

    def group(self, step: int) -> list:
        """The batches step ``step`` (0-based) is meant to use."""
        return list(range(step * self.accum_steps, (step + 1) * self.accum_steps))

    def describe(self) -> str:
        parts = [f"{self.n_batches} batches", self.optimizer]
        if self.accum_steps > 1:
            parts.append(f"accum_steps={self.accum_steps}")
        if self.stale:
            parts.append("stale gradients")
        if self.as_generator:
            parts.append("batches as a generator")
        return ", ".join(parts)


TRAIN_LOOP = {
    "visible": [LoopCase("basic", seed=3, n_batches=4)],
    "hidden": [
        LoopCase("generator+momentum", seed=11, n_batches=6, optimizer="momentum", lr=0.05,
                 as_generator=True),
        LoopCase("adam", seed=17, n_batches=5, optimizer="adam", lr=0.01),
    ],
}

TRAIN_ACCUMULATE = {
    "visible": [LoopCase("basic", seed=5, n_batches=8, accum_steps=4)],
    "hidden": [
        LoopCase("generator", seed=13, n_batches=6, accum_steps=2, as_generator=True),
        LoopCase("adam", seed=19, n_batches=9, accum_steps=3, optimizer="adam", lr=0.01),
    ],
}
