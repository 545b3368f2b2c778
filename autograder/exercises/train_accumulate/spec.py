"""Lesson 3, practice exercise (Going further): ``train_accumulate(model, optimizer, loss_fn,
batches, accum_steps)``: gradient accumulation (scenarios: ``_training_loop``)."""
from ...wire.spec import Exercise

EXERCISE = Exercise(
    "train_accumulate", lesson=3, letter="e", kind="function", answer=("train_accumulate",),
    cells=("train_accumulate", "train_accumulate_check"),
    task=("practice-accumulate",), messages="loop", observer="autograder.kernel.loop.observe",
    practice=True, summary="Practice exercise 3(e): gradient accumulation over ``accum_steps`` micro-batches.")
