"""Small tensor helpers the judges share: tolerant comparison, and parameters as data."""
from __future__ import annotations

import torch

RTOL, ATOL = 1e-4, 1e-6


def close(a: torch.Tensor, b: torch.Tensor, rtol: float = RTOL, atol: float = ATOL) -> bool:
    return a.shape == b.shape and bool(torch.allclose(a.double(), b.double(), rtol=rtol, atol=atol))


def as_data(tensors) -> list:
    """Tensors as nested lists of Python numbers (exact for float32)."""
    return [t.detach().tolist() for t in tensors]


def from_data(values, like: torch.Tensor | None = None, dtype=torch.float32) -> torch.Tensor | None:
    """A tensor from nested lists; ``None`` if the data does not have ``like``'s shape."""
    try:
        tensor = torch.tensor(values, dtype=dtype)
    except (TypeError, ValueError, RuntimeError):
        return None
    if like is not None and tensor.shape != like.shape:
        return None
    return tensor


def load_(params, values) -> None:
    """Copy ``values`` into ``params`` in place, outside autograd."""
    with torch.no_grad():
        for p, v in zip(params, values):
            p.copy_(v)


def uniform(shape, bound: float, gen: torch.Generator) -> torch.Tensor:
    return (torch.rand(shape, generator=gen) * 2 - 1) * bound
