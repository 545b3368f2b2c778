"""How long a lesson takes: the one counting rule behind ``benchmarks/bench_course.py`` and
``tests/test_lesson_text.py``.

The estimate of a lesson's minutes (issue 19, "Length and shape"):

* **prose**: the words of every markdown cell, at 150 words a minute. A word is a run of
  non-space characters holding a letter or a digit (so ``*`` or ``=`` in a formula is not one);
  text in code spans and code blocks counts, since the student reads it;
* **demo**: one minute per code cell that is neither graded nor a solution nor locked (the
  locked setup cell only imports), except the practice Quick Check cell, whose questions count
  as questions;
* **question**: two minutes per question: each graded Quick Check test cell (``check_choice``)
  and each practice question named in ``quiz.quick_check(...)``;
* **exercise**: per graded test cell of an exercise (grade id ``<name>_tests``), five minutes
  plus one per non-blank line of its model solution (between ``### BEGIN SOLUTION`` and
  ``### END SOLUTION`` in the answer cell ``<name>``), at most fifteen.

A lesson's optional "Going further" section starts at the markdown cell with id
``going-further`` and runs to the end of the notebook; it must hold no graded cell (a practice
question, ungraded, may sit beside the material it asks about). Its cells are counted apart
(``further``) and are **not** part of the hour: the limits apply to ``core``.

Limits: core minutes ≤ 60, core prose ≤ 2,000 words, every markdown cell (core or not)
≤ 120 words.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

WORDS_PER_MINUTE = 150
DEMO_MINUTES = 1
QUESTION_MINUTES = 2
EXERCISE_MINUTES = (5, 15)  # least, most
MAX_MINUTES = 60
MAX_WORDS = 2000
MAX_CELL_WORDS = 120
GOING_FURTHER = "going-further"  # id of the markdown cell that opens the optional section

_WORD = re.compile(r"\S*[^\W_]\S*")
_PRACTICE = re.compile(r"quiz\.quick_check\(([^)]*)\)")
_SOLUTION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)


def words(text: str) -> int:
    """Words of a piece of prose (works for space-separated scripts, not for Chinese)."""
    return len(_WORD.findall(text))


@dataclass
class Part:
    """The counts of one part of a lesson (its core, or its Going further section)."""
    words: int = 0
    demos: int = 0
    questions: int = 0
    exercise_minutes: list = field(default_factory=list)
    graded: int = 0  # graded cells (exercise tests and graded Quick Check questions)
    cells: dict = field(default_factory=dict)  # markdown cell id -> words

    @property
    def minutes(self) -> float:
        return (self.words / WORDS_PER_MINUTE + self.demos * DEMO_MINUTES
                + self.questions * QUESTION_MINUTES + sum(self.exercise_minutes))

    @property
    def longest(self) -> tuple:
        """(words, cell id) of the longest markdown cell, or (0, None)."""
        return max(((n, cid) for cid, n in self.cells.items()), default=(0, None))


def _grading(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def exercise_minutes(solution_source: str) -> int:
    match = _SOLUTION.search(solution_source)
    lines = [line for line in (match.group(1) if match else "").splitlines() if line.strip()]
    least, most = EXERCISE_MINUTES
    return min(most, least + len(lines))


def measure(nb, prose: dict | None = None) -> dict:
    """``{"core": Part, "further": Part}`` of a notebook. ``prose`` (cell id -> text) replaces
    the markdown cells' English text, to count a translation."""
    solutions = {c.id: c.source for c in nb.cells if c.cell_type == "code" and _grading(c).get("solution")}
    parts = {"core": Part(), "further": Part()}
    part = parts["core"]
    for cell in nb.cells:
        if cell.id == GOING_FURTHER:
            part = parts["further"]
        meta = _grading(cell)
        if cell.cell_type == "markdown":
            n = words(prose.get(cell.id, cell.source) if prose else cell.source)
            part.words += n
            part.cells[cell.id] = n
        elif cell.cell_type != "code" or meta.get("solution"):
            continue
        elif meta.get("grade"):
            part.graded += 1
            if "check_choice(" in cell.source:
                part.questions += 1
            else:
                name = meta.get("grade_id", cell.id).removesuffix("_tests")
                part.exercise_minutes.append(exercise_minutes(solutions.get(name, "")))
        elif (match := _PRACTICE.search(cell.source)):
            part.questions += len(re.findall(r"[\"'][^\"']+[\"']", match.group(1)))
        elif not meta.get("locked"):
            part.demos += 1
    return parts


def problems(name: str, nb) -> list:
    """What breaks the limits in a notebook, one line each (empty when it keeps them)."""
    parts = measure(nb)
    core, out = parts["core"], []
    if core.minutes > MAX_MINUTES:
        out.append(f"{name}: {core.minutes:.0f} minutes > {MAX_MINUTES}")
    if core.words > MAX_WORDS:
        out.append(f"{name}: {core.words} words of prose > {MAX_WORDS}")
    for part in parts.values():
        out += [f"{name}: cell {cid!r} has {n} words > {MAX_CELL_WORDS}"
                for cid, n in part.cells.items() if n > MAX_CELL_WORDS]
    if parts["further"].graded:
        out.append(f"{name}: the Going further section holds graded cells ({parts['further'].graded})")
    return out
