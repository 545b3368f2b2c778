"""Lesson 2, exercise (c): ``weighted_grad(f, x, v)``: ``backward(gradient=v)`` on a non-scalar
output (the functions are ``_functions.TO_VECTOR``)."""
from ...wire.spec import Exercise

EXERCISE = Exercise(
    "weighted_grad", lesson=2, letter="c", kind="function", answer=("weighted_grad",),
    cells=("weighted_grad", "weighted_grad_tests"),
    task=("ex-c",), messages="backward",
    summary="Exercise 2(c): backward() on a non-scalar output with gradient=.")
