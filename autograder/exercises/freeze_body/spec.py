"""Lesson 1, exercise (b): ``freeze_body(model)`` freezes the body, keeps the head trainable.

A scenario is a net (``kind``: an MLP, or one with batch norm in its body), every parameter's
value and a batch; the kernel freezes it with the student's function and takes one plain
gradient step (``LR``) on ``loss_of``; the judge takes the same step with the head alone.
"""
from __future__ import annotations

from ...wire.spec import Exercise

EXERCISE = Exercise(
    "freeze_body", lesson=1, letter="b", kind="function", answer=("freeze_body",),
    cells=("freeze_body", "freeze_body_tests"),
    task=("ex-b",), messages="graph",
    summary="Exercise 1(b): only the head receives gradients.")
