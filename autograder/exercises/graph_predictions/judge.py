"""Lesson 1, exercise (a): predict ``requires_grad``, ``is_leaf`` and the ``grad_fn`` of
tensors in a short piece of code, the student's own variant of it (``judges.variants``). The
truth is what PyTorch reports when the judge runs that code itself."""
from __future__ import annotations

import torch

from .spec import EXERCISE
from ...wire.verdict import PASS, Verdict
from ...judges import select, variants

PARTS = {"visible": ["x", "k", "y"], "hidden": list(EXERCISE.graded_parts)}


def true_properties(variant: dict | None = None) -> dict:
    """What PyTorch reports for each tensor of the student's variant of the code (the
    published one without), run here: the course's own code, never a student's."""
    shown = variant or variants.variant("l1_graph_predictions", None).shown()
    names: dict = {"torch": torch}
    exec(shown["code"], names)
    out = {}
    for name in select(PARTS, "all"):
        t = names[name]
        out[name] = (t.requires_grad, t.is_leaf, type(t.grad_fn).__name__ if t.grad_fn else None)
    return out


def _part(name: str, answers: dict, truth: dict, judged: bool) -> Verdict:
    """One tensor's prediction: its form, and (``judged``) whether it is what PyTorch reports."""
    if name not in answers:
        return Verdict.fail("missing", "graph.missing", name=name)
    got = answers[name]
    if not (isinstance(got, tuple) and len(got) == 3):
        return Verdict.fail("bad_format", "graph.format", name=name, got=repr(got)[:200])
    if not judged:
        return PASS
    requires_grad, is_leaf, grad_fn = truth[name]
    if got[0] is not requires_grad:
        return Verdict.fail("requires_grad", f"graph.requires_grad_{requires_grad}".lower(), name=name)
    if got[1] is not is_leaf:
        return Verdict.fail("is_leaf", f"graph.is_leaf_{is_leaf}".lower(), name=name)
    if got[2] != grad_fn:
        return Verdict.fail("grad_fn", "graph.grad_fn", name=name, got=repr(got[2])[:200], expected=repr(grad_fn))
    return PASS


def verify_value(answers, cases: str = "visible", variant: dict | None = None) -> Verdict:
    """``variant``: the code the student was shown (the judge's own draw while grading; for the
    visible part in a student's kernel, what their notebook showed). Without one, the visible
    part is judged on the published code and the graded part only in its form."""
    if not isinstance(answers, dict):
        return Verdict.fail("bad_format", "graph.not_dict", got=repr(answers)[:200])
    truth = true_properties(variant)
    for name in select(PARTS, cases):
        verdict = _part(name, answers, truth, judged=variant is not None or name not in PARTS["hidden"])
        if not verdict.ok:
            return verdict
    return PASS


def verify_parts(answers, variant: dict | None = None) -> list:
    """Every tensor's prediction judged on its own, graded ones included: [(name, verdict)]. For
    a student working alone, on the published code, whose truth is public (it is what running
    the code shows), so they learn which of their predictions are right."""
    if not isinstance(answers, dict):
        return [("", Verdict.fail("bad_format", "graph.not_dict", got=repr(answers)[:200]))]
    truth = true_properties(variant)
    return [(name, _part(name, answers, truth, judged=True)) for name in select(PARTS, "all")]
