"""Lesson 3, exercise (c): ``train_accumulate(model, optimizer, loss_fn, batches, accum_steps)``:
gradient accumulation (scenarios: ``_training_loop``)."""
from ..spec import Exercise

EXERCISE = Exercise(
    "train_accumulate", lesson=3, letter="c", kind="function", answer=("train_accumulate",),
    cells=("train_accumulate", "train_accumulate_tests"), messages="loop", observer="loop.observe",
    summary="Exercise 3(c): gradient accumulation over ``accum_steps`` micro-batches.")
