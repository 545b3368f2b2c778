"""Exercise 2(b) in the kernel: run a student's ``numerical_grad`` on the judge's function and
report the result, how the function was called and whether ``x`` was left as it was."""
from __future__ import annotations

import torch

from ...kernel import running, watched
from ...wire.scenarios.functions import TO_SCALAR, Watched


def observe(student, data: dict, name: str) -> dict:
    f = Watched(TO_SCALAR[data["spec"]["function"]][0])
    x = torch.tensor(data["x"], dtype=torch.float64)
    original = x.clone()
    result, failed = running.call(student, name, f, x, data["eps"])
    return watched.report(result, failed, f, changed_input=not torch.equal(x, original),
                          input_rounded=torch.allclose(x, original, rtol=1e-12, atol=1e-15))
