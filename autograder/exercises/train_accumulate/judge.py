"""Lesson 3, practice exercise (e), under Going further: ``train_accumulate(..., accum_steps)``:
one step per group of micro-batches with the gradient of their mean loss (see
:mod:`training_loop`)."""
from __future__ import annotations

from ...judges import training_loop

CASES = {
    "visible": [dict(seed=5, n_batches=8, optimizer="sgd", lr=0.1, accum_steps=4)],
    "hidden": [
        dict(seed=13, n_batches=6, optimizer="sgd", lr=0.1, accum_steps=2, as_generator=True),
        dict(seed=19, n_batches=9, optimizer="adam", lr=0.01, accum_steps=3),
    ],
}
scenario = training_loop.scenario


def verify(data: dict, observation: dict):
    return training_loop.verify(data, observation, check_losses=False)
