"""The models of lesson 4's exercises, as data: every parameter and buffer of a model
(``state_dict``) as nested lists, and back."""
from __future__ import annotations

import torch
from torch import nn


def state_as_data(model: nn.Module) -> dict:
    return {name: value.tolist() for name, value in model.state_dict().items()}


def load_state(model: nn.Module, state: dict) -> nn.Module:
    model.load_state_dict({name: torch.tensor(value) for name, value in state.items()})
    return model


def fresh(build):
    """A model from ``build()`` without touching the caller's random state."""
    with torch.random.fork_rng(devices=[]):
        return build()
