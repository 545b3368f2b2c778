"""Lesson 3, practice exercise (Going further): ``dead_parameters(model)``: after
``loss.backward()``, the names of the parameters that received no gradient. A scenario is a net
with one hidden ReLU layer made dead (a large negative bias), or none, and a head the forward
pass never uses (``aux``)."""
from __future__ import annotations

from ...wire.spec import Exercise

EXERCISE = Exercise(
    "dead_parameters", lesson=3, letter="d", kind="function", answer=("dead_parameters",),
    cells=("dead_parameters", "dead_parameters_check"),
    task=("practice-dead", "practice-dead-rules"), messages="debug", practice=True,
    summary="Practice exercise 3(d): reading .grad to find the parameters that received no gradient.")
