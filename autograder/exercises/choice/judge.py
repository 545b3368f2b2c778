"""Quick Check answers: a letter from "a" to "d".

The visible test only checks the form of the answer. The key is the judge's: for a generated
question (``variants``), that of the student's own variant; otherwise the one a hidden test of
the instructor's source notebook gives. A kernel never sees it.
"""
from __future__ import annotations

from ... import messages, titles
from ...wire.verdict import PASS, Verdict, nested

LETTERS = ("a", "b", "c", "d")


def verify_value(answer, cases: str = "visible", question: str = "", key: str | None = None,
                 variant: str | None = None) -> Verdict:
    """``variant``: the name of the student's own variant of a generated question, which the
    message of a wrong answer gives (the key is never in it)."""
    letter = answer.strip().lower().rstrip(")") if isinstance(answer, str) else answer
    title = titles.question(question)  # "Question 1", as the notebook's heading names it
    if letter not in LETTERS:
        return Verdict.fail("unanswered", "quiz.unanswered", question=question, title=title,
                            choices=", ".join(LETTERS), got=repr(answer)[:100])
    if key is not None and letter != key:
        named = {"variant": variant} if variant and variant != "published" else {}
        which = "wrong_variant" if named else "wrong"
        revisit = f"revisit.{question}"
        if messages.has(revisit):
            return Verdict.fail("wrong_choice", f"quiz.{which}_revisit", question=question, title=title, got=letter,
                                revisit=nested(revisit), **named)
        return Verdict.fail("wrong_choice", f"quiz.{which}", question=question, title=title, got=letter, **named)
    return PASS
