"""Lesson 4 in the kernel: run a student's inference code on the judge's model and report
the values it returned and what happened around them: tensors saved for backward
(``saved_tensors_hooks``), the grad mode and train/eval mode left behind, and whether
the parameters were touched."""
from __future__ import annotations

import contextlib

import torch

from ..wire.codec import encode
from ..wire.exercises import evaluate, predict
from . import running


@contextlib.contextmanager
def counting_saved():
    """Count tensors saved for backward inside the block."""
    count = {"tensors": 0}

    def pack(t):
        count["tensors"] += 1
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        yield count


def _call(student, name: str, *args):
    """Run the student's function; also report the grad mode it left, then restore it."""
    was_enabled = torch.is_grad_enabled()
    try:
        result, failed = running.call(student, name, *args)
        return result, failed, torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(was_enabled)


def observe_predict(student, data: dict, name: str) -> dict:
    model, x = predict.build(data)
    for p in model.parameters():
        p.grad = torch.full_like(p, 0.5)
    before = [(p.detach().clone(), p.grad.clone()) for p in model.parameters()]
    modules = list(model.named_modules())
    modes = [m.training for _, m in modules]
    with counting_saved() as saved:
        out, failed, grad_mode_after = _call(student, name, model, x)
    if failed:
        return {"error": failed.to_data()}
    touched = any(not torch.equal(value, p.detach()) or p.grad is None or not torch.equal(grad, p.grad)
                  for (value, grad), p in zip(before, model.parameters()))
    frozen = [n for n, p in model.named_parameters() if not p.requires_grad]
    return {"output": encode(out), "saved_tensors": saved["tensors"], "grad_mode_after": grad_mode_after,
            "touched_params": touched, "requires_grad_off": frozen,
            "modes": {n: [was, bool(m.training)] for (n, m), was in zip(modules, modes)}}


def observe_sgd_step(student, data: dict, name: str) -> dict:
    params = [torch.tensor(p, requires_grad=True) for p in data["params"]]
    for p, g in zip(params, data["grads"]):
        p.grad = torch.tensor(g)
    versions = [p._version for p in params]
    objects = list(params)
    _, failed, grad_mode_after = _call(student, name, params, data["spec"]["lr"])
    if failed:
        return {"error": failed.to_data()}
    return {"grad_mode_after": grad_mode_after,
            "list_replaced": any(a is not b for a, b in zip(params, objects)) or len(params) != len(objects),
            "after": [p.detach().tolist() for p in params],
            "leaf": [bool(p.is_leaf and p.requires_grad) for p in params],
            "version_moved": [p._version != v for p, v in zip(params, versions)]}


def observe_evaluate(student, data: dict, name: str) -> dict:
    model, batches = evaluate.build(data)
    modes_seen = []  # per forward pass of any module: was it in training mode? (dropout is a submodule)
    handles = [m.register_forward_pre_hook(lambda m, args: modes_seen.append(m.training))
               for m in model.modules()]
    try:
        with counting_saved() as saved:
            got, failed, grad_mode_after = _call(student, name, model, batches)
    finally:
        for handle in handles:
            handle.remove()
    if failed:
        return {"error": failed.to_data()}
    return {"accuracy": encode(got), "modes_seen": modes_seen[:10_000], "saved_tensors": saved["tensors"],
            "training_after": model.training, "grad_mode_after": grad_mode_after,
            "submodules_after": {n: [m.training, type(m).__name__] for n, m in model.named_modules() if n}}
