"""What a training-loop scenario means (lesson 3, exercises (b) and (c)): the model's initial
parameters, the batches, the gradients already sitting in ``.grad`` when the loop starts (as
after an earlier epoch), and the optimizer's settings. The kernel rebuilds the model and
optimizer from it to run the student's loop; the judge, to replay it."""
from __future__ import annotations

import torch
from torch import nn


def make_model() -> nn.Sequential:
    """The grader's model, without initialising it (its values come from the scenario, and
    the student's global random state stays untouched)."""
    return nn.Sequential(nn.utils.skip_init(nn.Linear, 3, 8), nn.Tanh(), nn.utils.skip_init(nn.Linear, 8, 1))


def make_optimizer(spec: dict, params) -> torch.optim.Optimizer:
    if spec["optimizer"] == "sgd":
        return torch.optim.SGD(params, lr=spec["lr"])
    if spec["optimizer"] == "momentum":
        return torch.optim.SGD(params, lr=spec["lr"], momentum=0.9)
    if spec["optimizer"] == "adam":
        return torch.optim.Adam(params, lr=spec["lr"])
    raise ValueError(spec["optimizer"])


def n_steps(spec: dict) -> int:
    return spec["n_batches"] // spec.get("accum_steps", 1)


def group(spec: dict, step: int) -> list:
    """The batches step ``step`` (0-based) must use."""
    accum = spec.get("accum_steps", 1)
    return list(range(step * accum, (step + 1) * accum))


def tensors_of(data: dict) -> tuple:
    """(parameters, batches, stale gradients) of a scenario as tensors."""
    params = [torch.tensor(p) for p in data["params"]]
    batches = [(torch.tensor(x), torch.tensor(y)) for x, y in data["batches"]]
    stale = [torch.tensor(g) for g in data["stale"]] if data.get("stale") else None
    return params, batches, stale
