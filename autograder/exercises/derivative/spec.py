"""Lesson 2, exercise (a): ``derivative(f, x)``: f'(x) as a float, computed by autograd
(the functions are ``_functions.SCALAR``)."""
from ...wire.spec import Exercise

EXERCISE = Exercise(
    "derivative", lesson=2, letter="a", kind="function", answer=("derivative",),
    cells=("derivative", "derivative_tests"),
    task=("ex-a",), messages="backward",
    summary="Exercise 2(a): a derivative computed by autograd.")
