"""Lesson 2 in the kernel: run a student's derivative code on the judge's functions and
report the result and how the function was called."""
from __future__ import annotations

import torch

from ..wire.codec import encode
from ..wire.exercises._functions import SCALAR, TO_SCALAR, TO_VECTOR, Watched
from . import running


def _report(result, failed, watched: Watched, **more) -> dict:
    if failed:
        return {"error": failed.to_data()}
    return {"value": encode(result), "calls": watched.calls, "calls_with_grad": watched.calls_with_grad,
            **more}


def observe_derivative(student, data: dict, name: str) -> dict:
    watched = Watched(SCALAR[data["spec"]["function"]][0])
    result, failed = running.call(student, name, watched, data["x"])
    return _report(result, failed, watched)


def observe_numerical_grad(student, data: dict, name: str) -> dict:
    watched = Watched(TO_SCALAR[data["spec"]["function"]][0])
    x = torch.tensor(data["x"], dtype=torch.float64)
    original = x.clone()
    result, failed = running.call(student, name, watched, x, data["eps"])
    return _report(result, failed, watched, changed_input=not torch.equal(x, original))


def observe_weighted_grad(student, data: dict, name: str) -> dict:
    watched = Watched(TO_VECTOR[data["spec"]["function"]][0])
    x = torch.tensor(data["x"], requires_grad=True)
    result, failed = running.call(student, name, watched, x, torch.tensor(data["v"]))
    return _report(result, failed, watched)
