"""Quick Check answers: a letter from "a" to "d".

The visible test only checks the form of the answer. The key is given to the hidden
test, which exists only in the instructor's source notebook: the judge reads it there,
and the kernel sees it only once the student's answer has been committed.
"""
from __future__ import annotations

from .. import messages
from ..wire.verdict import PASS, Verdict, nested

LETTERS = ("a", "b", "c", "d")


def verify_value(answer, cases: str = "visible", question: str = "", key: str | None = None) -> Verdict:
    letter = answer.strip().lower().rstrip(")") if isinstance(answer, str) else answer
    if letter not in LETTERS:
        return Verdict.fail("unanswered", "quiz.unanswered", question=question, choices=", ".join(LETTERS),
                            got=repr(answer)[:100])
    if key is not None and letter != key:
        revisit = f"revisit.{question}"
        if messages.has(revisit):
            return Verdict.fail("wrong_choice", "quiz.wrong_revisit", question=question, got=letter,
                                revisit=nested(revisit))
        return Verdict.fail("wrong_choice", "quiz.wrong", question=question, got=letter)
    return PASS
