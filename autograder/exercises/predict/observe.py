"""Exercise 4(a) in the kernel: run a student's ``predict`` on the judge's model and report
what it returned and what happened around it: tensors saved for backward, the grad mode and
the train/eval modes left behind, and whether the parameters or their gradients were touched."""
from __future__ import annotations

import torch

from ...kernel.inference import call, counting_saved
from ...wire.codec import encode
from .scenario import build


def observe(student, data: dict, name: str) -> dict:
    model, x = build(data)
    for p in model.parameters():
        p.grad = torch.full_like(p, 0.5)
    before = [(p.detach().clone(), p.grad.clone()) for p in model.parameters()]
    modules = list(model.named_modules())
    modes = [m.training for _, m in modules]
    with counting_saved() as saved:
        out, failed, grad_mode_after = call(student, name, model, x)
    if failed:
        return {"error": failed.to_data()}
    touched = any(not torch.equal(value, p.detach()) or p.grad is None or not torch.equal(grad, p.grad)
                  for (value, grad), p in zip(before, model.parameters()))
    frozen = [n for n, p in model.named_parameters() if not p.requires_grad]
    return {"output": encode(out), "saved_tensors": saved["tensors"], "grad_mode_after": grad_mode_after,
            "touched_params": touched, "requires_grad_off": frozen,
            "modes": {n: [was, bool(m.training)] for (n, m), was in zip(modules, modes)}}
