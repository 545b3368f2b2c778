"""Lesson 4, exercise (b): ``sgd_step(params, lr)``: ``p -= lr * p.grad`` in place, under
``no_grad``. A scenario is the parameters' values and their gradients (``SHAPES``)."""
from ...wire.spec import Exercise

EXERCISE = Exercise(
    "sgd_step", lesson=4, letter="b", kind="function", answer=("sgd_step",),
    cells=("sgd_step", "sgd_step_tests"),
    task=("ex-b", "ex-b-data"), messages="inference",
    summary="Exercise 4(b): a manual SGD step under no_grad.")

SHAPES = [(2, 3), (2,)]
