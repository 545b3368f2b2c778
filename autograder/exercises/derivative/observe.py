"""Exercise 2(a) in the kernel: run a student's ``derivative`` on the judge's function and report
the result and how the function was called."""
from __future__ import annotations

from ...kernel import running, watched
from ...wire.scenarios.functions import SCALAR, Watched


def observe(student, data: dict, name: str) -> dict:
    f = Watched(SCALAR[data["spec"]["function"]][0])
    result, failed = running.call(student, name, f, data["x"])
    return watched.report(result, failed, f)
