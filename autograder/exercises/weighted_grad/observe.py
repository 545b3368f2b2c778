"""Exercise 2(c) in the kernel: run a student's ``weighted_grad`` on the judge's function and
report the result and how the function was called."""
from __future__ import annotations

import torch

from ...kernel import running, watched
from ...wire.scenarios.functions import TO_VECTOR, Watched


def observe(student, data: dict, name: str) -> dict:
    f = Watched(TO_VECTOR[data["spec"]["function"]][0])
    x = torch.tensor(data["x"], requires_grad=True)
    result, failed = running.call(student, name, f, x, torch.tensor(data["v"]))
    return watched.report(result, failed, f)
