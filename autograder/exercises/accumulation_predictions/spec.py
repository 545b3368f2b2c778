"""Lesson 3, exercise (a): predict what ``.grad`` holds at four moments, for ``w`` (checked
visibly, with explanations) and again for ``v``, whose start value and loss are the student's
own variant (graded: the judge computes the truth for that variant, and no check a student can
call says whether these four are right)."""
from ...wire.spec import Exercise

EXERCISE = Exercise(
    "accumulation_predictions", lesson=3, letter="a", kind="value",
    answer=("grad_before", "grad_after_one", "grad_after_two", "grad_after_clear",
            "v_grad_before", "v_grad_after_one", "v_grad_after_two", "v_grad_after_clear"),
    cells=("accumulation_predictions", "accumulation_predictions_tests"),
    task=("ex-a", "ex-a-other", "ex-a-answer"), messages="accumulation_predictions",
    variants="l3_accumulation_predictions", params=("answers", "cases", "variant"), secret=("variant",),
    graded_parts=("v_grad_before", "v_grad_after_one", "v_grad_after_two", "v_grad_after_clear"),
    summary="Exercise 3(a): predicted values of .grad (the second four, for your own v, are graded).")
