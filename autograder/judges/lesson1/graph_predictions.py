"""Lesson 1, exercise (a): predict ``requires_grad``, ``is_leaf`` and the ``grad_fn`` of
tensors in a short piece of code. The truth is what PyTorch reports when the judge
runs that code itself."""
from __future__ import annotations

import torch

from ...wire.verdict import PASS, Verdict
from .. import select

# The code of exercise (a), run here to get the true answers.
PREDICT_CODE = """
x = torch.tensor([1.0, 2.0], requires_grad=True)
k = torch.tensor([3.0, 4.0])
y = x * k
z = y.sum()
d = z.detach()
"""
PARTS = {"visible": ["x", "k", "y"], "hidden": ["z", "d"]}


def true_properties() -> dict:
    names: dict = {"torch": torch}
    exec(PREDICT_CODE, names)  # the course's own code, not a student's
    out = {}
    for name in select(PARTS, "all"):
        t = names[name]
        out[name] = (t.requires_grad, t.is_leaf, type(t.grad_fn).__name__ if t.grad_fn else None)
    return out


def verify_value(answers, cases: str = "visible") -> Verdict:
    truth = true_properties()
    if not isinstance(answers, dict):
        return Verdict.fail("bad_format", "graph.not_dict", got=repr(answers)[:200])
    for name in select(PARTS, cases):
        if name not in answers:
            return Verdict.fail("missing", "graph.missing", name=name)
        got = answers[name]
        if not (isinstance(got, tuple) and len(got) == 3):
            return Verdict.fail("bad_format", "graph.format", name=name, got=repr(got)[:200])
        requires_grad, is_leaf, grad_fn = truth[name]
        if got[0] is not requires_grad:
            return Verdict.fail("requires_grad", f"graph.requires_grad_{requires_grad}".lower(), name=name)
        if got[1] is not is_leaf:
            return Verdict.fail("is_leaf", f"graph.is_leaf_{is_leaf}".lower(), name=name)
        if got[2] != grad_fn:
            return Verdict.fail("grad_fn", "graph.grad_fn", name=name, got=repr(got[2])[:200],
                                expected=repr(grad_fn))
    return PASS
