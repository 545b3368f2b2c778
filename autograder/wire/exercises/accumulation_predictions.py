"""Lesson 3, exercise (a): predict what ``.grad`` holds at four moments, for ``w`` (checked
visibly, with explanations) and again for ``v`` with other numbers (graded against a key that
is the judge's alone: ``secret``, read from the instructor's hidden test, never sent to a
kernel)."""
from ..spec import Exercise

EXERCISE = Exercise(
    "accumulation_predictions", lesson=3, letter="a", kind="value",
    answer=("grad_before", "grad_after_one", "grad_after_two", "grad_after_clear",
            "v_grad_before", "v_grad_after_one", "v_grad_after_two", "v_grad_after_clear"),
    cells=("accumulation_predictions", "accumulation_predictions_tests"), messages="accumulation_predictions",
    params=("answers", "cases", "key"), secret=("key",),
    summary="Exercise 3(a): predicted values of .grad (the second four are graded against the judge's key).")
