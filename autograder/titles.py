"""What a student calls the things they work on: the titles the notebook's own headings use
("Lesson 3", "Exercise (b)", "Question 1", in the notebook's language), never the ids the
grader keys them by (``03_zeroing_grad``, ``train_loop_tests``, ``l3_q1``).

Each title is a nested message (``wire.verdict.nested``): data that a verdict can carry
across the trust boundary and that is put into words in the reader's language where it is
read. ``text`` renders one here.
"""
from __future__ import annotations

import re

from . import messages
from .exercises import EXERCISES
from .wire.verdict import nested

_QUESTION = re.compile(r"l(\d+)_q(\d+)")
_ASSIGNMENT = re.compile(r"0*(\d+)_\w+")
_TEST_CELLS = {spec.cells[1]: spec for spec in EXERCISES}


def question(qid: str) -> dict:
    """A graded Quick Check question, ``l3_q1``: "Question 1", as its heading says."""
    found = _QUESTION.fullmatch(qid) if isinstance(qid, str) else None
    return nested("titles.question", number=int(found.group(2)) if found else "?")


def exercise(spec) -> dict:
    """A declared exercise: "Exercise (b)" as its heading says; a practice one, which has no
    letter in its heading, by the function the student writes."""
    if spec.practice:
        return nested("titles.practice", name=spec.answer[0])
    return nested("titles.exercise", letter=spec.letter)


def lesson(assignment: str) -> dict:
    """A lesson by its assignment's name, ``03_zeroing_grad``: "Lesson 3"."""
    found = _ASSIGNMENT.fullmatch(assignment) if isinstance(assignment, str) else None
    return nested("titles.lesson", number=int(found.group(1)) if found else "?")


def test_cell(grade_id: str) -> dict | None:
    """The exercise or question a graded test cell checks (None for a cell the course does not know)."""
    if grade_id in _TEST_CELLS:
        return exercise(_TEST_CELLS[grade_id])
    found = re.fullmatch(r"quiz_q(\d+)", grade_id) if isinstance(grade_id, str) else None
    return nested("titles.question", number=int(found.group(1))) if found else None


def text(title: dict, lang: str | None = None) -> str:
    """A title in the reader's language (``lang``, else the notebook's)."""
    return messages.render(title["$key"], title["fields"], lang)
