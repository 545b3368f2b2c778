"""The objects of a ``fit_line`` scenario (``spec.py`` says what it is), built from its data for the
kernel's observer and the judge alike. Kept apart from ``spec.py``, which the registry imports in
every process, the grader's own included: only the kernel and the judge need torch (a grading
worker that imported it spent ~1.9 s of CPU on it, twice a run)."""
from __future__ import annotations

import torch


def tensors(data: dict) -> tuple:
    """w and b (holding their stale gradients), xs and ys."""
    w = torch.tensor(data["w"], requires_grad=True)
    b = torch.tensor(data["b"], requires_grad=True)
    w.grad, b.grad = torch.tensor(data["stale_w"]), torch.tensor(data["stale_b"])
    return w, b, torch.tensor(data["xs"]), torch.tensor(data["ys"])
