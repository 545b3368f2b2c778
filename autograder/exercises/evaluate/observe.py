"""Exercise 4(c) in the kernel: run a student's ``evaluate`` on the judge's model and batches and
report the accuracy, the modes each forward pass ran in, the tensors saved for backward, and
the modes and grad mode left behind."""
from __future__ import annotations

from ...kernel.inference import call, counting_saved
from ...wire.codec import encode
from .scenario import build


def observe(student, data: dict, name: str) -> dict:
    model, batches = build(data)
    modes_seen = []  # per forward pass of any module: was it in training mode? (dropout is a submodule)
    handles = [m.register_forward_pre_hook(lambda m, args: modes_seen.append(m.training))
               for m in model.modules()]
    try:
        with counting_saved() as saved:
            got, failed, grad_mode_after = call(student, name, model, batches)
    finally:
        for handle in handles:
            handle.remove()
    if failed:
        return {"error": failed.to_data()}
    return {"accuracy": encode(got), "modes_seen": modes_seen[:10_000], "saved_tensors": saved["tensors"],
            "training_after": model.training, "grad_mode_after": grad_mode_after,
            "submodules_after": {n: [m.training, type(m).__name__] for n, m in model.named_modules() if n}}
