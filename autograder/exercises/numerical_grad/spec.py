"""Lesson 2, exercise (b): ``numerical_grad(f, x, eps)``: central differences, no autograd
(the functions are ``_functions.TO_SCALAR``)."""
from ...wire.spec import Exercise

EXERCISE = Exercise(
    "numerical_grad", lesson=2, letter="b", kind="function", answer=("numerical_grad",),
    cells=("numerical_grad", "numerical_grad_tests"),
    task=("ex-b",), messages="backward",
    summary="Exercise 2(b): a central-difference gradient.")
