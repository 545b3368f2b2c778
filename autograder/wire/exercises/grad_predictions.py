"""Lesson 3, exercise (a): predict what ``w.grad`` holds at four moments."""
from ..spec import Exercise

EXERCISE = Exercise(
    "grad_predictions", lesson=3, letter="a", kind="value",
    answer=("grad_before", "grad_after_one", "grad_after_two", "grad_after_clear"),
    cells=("grad_predictions", "grad_predictions_tests"), messages="grad_predictions",
    summary="Exercise 3(a): predicted values of .grad.")
