"""The graded Quick Checks: ``check_choice(question, answer)``, a letter from "a" to "d". The key
is the judge's alone (``secret``): read from the instructor's hidden test, never sent to a
kernel."""
from ...wire.spec import Exercise

EXERCISE = Exercise(
    "choice", lesson=0, letter="", kind="value", answer=(), cells=(), messages="quiz",
    params=("question", "answer", "key", "cases"), subject="answer", secret=("key",),
    hints=False, summary="A graded Quick Check answer: one of \"a\"–\"d\"; whether it is right is the judge's to say.")
