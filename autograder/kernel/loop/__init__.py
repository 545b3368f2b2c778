"""Training loops in the kernel: run the student's loop on a scenario under the tracer,
report what it did (the judge's data) and name its mistake (the message)."""
from __future__ import annotations

from ...wire.codec import encode
from ...wire.tensors import as_data
from . import diagnose
from .case import LoopCase


def observe(student, data: dict, name: str) -> dict:
    """The observation the judge checks: parameters after each step of the grader's
    optimizer, the returned value, and the diagnosis (for the message)."""
    case = LoopCase(data)
    verdict, trace = diagnose.run(student, case, name)
    return {"steps": [as_data(step.after) for step in trace.steps], "final": as_data(trace.final),
            "losses": encode(trace.result) if trace.error is None else None,
            "diagnosis": verdict.to_data()}
