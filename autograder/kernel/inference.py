"""What lesson 4's exercises (predict, sgd_step, evaluate) observe around a student's call: the
tensors autograd saved for backward (``saved_tensors_hooks``) and the grad mode left behind."""
from __future__ import annotations

import contextlib

import torch

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


def call(student, name: str, *args):
    """Run the student's function; also report the grad mode it left, then restore it."""
    was_enabled = torch.is_grad_enabled()
    try:
        result, failed = running.call(student, name, *args)
        return result, failed, torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(was_enabled)
