"""The notebooks' prose in a language other than English, by markdown cell id.

A lesson's prose is in ``lessons/locale/<lang>/<assignment>.toml`` (``[cells]``), except the cells
that state an exercise's task: those are the exercise's own, in the ``[task]`` table of
``autograder/exercises/<name>/locale/<lang>.toml``, beside its messages and hints (the cell ids
its ``spec.py`` lists as ``task``). So an exercise, its words in every language included, is one
folder. English lives in the source notebooks.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

from autograder.exercises import EXERCISES

LOCALE = Path(__file__).resolve().parent / "locale"
EXERCISE_FOLDERS = Path(__file__).resolve().parents[1] / "autograder" / "exercises"


def lesson_file(lang: str, assignment: str) -> Path:
    return LOCALE / lang / f"{assignment}.toml"


def _table(path: Path, name: str) -> dict:
    with path.open("rb") as f:
        return tomllib.load(f).get(name, {})


def exercises_of(assignment: str) -> list:
    """The exercises of ``assignment``: those of the lesson its number names (``03_zeroing_grad``: 3)."""
    lesson = int(assignment[:2]) if assignment[:2].isdigit() else None
    return [exercise for exercise in EXERCISES if exercise.lesson == lesson]


def tasks(lang: str, assignment: str) -> dict:
    """cell id → text of the task cells of the exercises of ``assignment``."""
    found = {}
    for exercise in exercises_of(assignment):
        path = EXERCISE_FOLDERS / exercise.name / "locale" / f"{lang}.toml"
        if exercise.task and path.is_file():
            found.update(_table(path, "task"))
    return found


def cells(lang: str, assignment: str) -> dict:
    """cell id → the markdown cell's text in ``lang``: the lesson's file and its exercises' task
    cells. Raises OSError without the lesson's file, ValueError for a cell given twice."""
    own, given = _table(lesson_file(lang, assignment), "cells"), tasks(lang, assignment)
    twice = sorted(set(own) & set(given))
    if twice:
        raise ValueError(f"{lang}/{assignment}: cells both in the lesson's file and an exercise's: {twice}")
    return own | given
