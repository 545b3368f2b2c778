"""Lesson 3, exercise (b): ``train(model, optimizer, loss_fn, batches)``: one pass that clears,
steps and reports the losses (scenarios: ``_training_loop``)."""
from ...wire.spec import Exercise

EXERCISE = Exercise(
    "train_loop", lesson=3, letter="b", kind="function", answer=("train",),
    cells=("train_loop", "train_loop_tests"),
    task=("ex-b",), messages="loop", observer="autograder.kernel.loop.observe",
    summary="Exercise 3(b): one pass of a training loop that clears, steps and reports losses.")
