"""The catalogues of student solutions of lessons 1-4's function exercises (each exercise's own,
``autograder/exercises/<name>/catalogue.py``), lesson by lesson, found through the registry, with
the verdict each must get (``catalogue.Entry``); the training loops' are ``catalogue.TRAIN_LOOP``
and ``TRAIN_ACCUMULATE``. A new exercise's catalogue is in its lesson's list with no edit here.
The module's only upper-case names are the four lists (a test reads every one as a list).
"""
from __future__ import annotations

import importlib.util

from catalogue import entries

from autograder import exercises

_loops = ("train_loop", "train_accumulate")  # (catalogue.py's)


def _lesson(n: int) -> list:
    return [entry for spec in exercises.EXERCISES if spec.lesson == n and spec.name not in _loops
            and importlib.util.find_spec(f"autograder.exercises.{spec.name}.catalogue") for entry in entries(spec.name)]


LESSON1, LESSON2, LESSON3, LESSON4 = (_lesson(n) for n in (1, 2, 3, 4))
