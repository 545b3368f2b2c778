"""The catalogues of student solutions, as the tests use them: each exercise's own, in its
folder (``autograder/exercises/<name>/catalogue.py``), read here as ``Entry``s; the two
training-loop exercises' here, lessons 1-4's in ``catalogue_lessons``.

Each entry is code a student could write, with the verdict the grader must give and
words its message must contain (the mistake, the batch or step, the line). Line
numbers count from the ``def`` line, as in a notebook cell that starts with it.
"""
from __future__ import annotations

import importlib
import linecache
import textwrap
from dataclasses import dataclass, field

import torch

from autograder.exercises import BY_NAME


@dataclass
class Entry:
    name: str
    source: str
    mistake: str | None  # None: must pass
    words: list = field(default_factory=list)
    cases: str = "visible"  # which grader cases show the mistake
    function: str = "train"

    def load(self):
        """Compile the source as its own 'cell', so the grader can quote its lines."""
        source = textwrap.dedent(self.source).lstrip("\n")
        filename = f"<cell {self.name}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = {"torch": torch}
        exec(compile(source, filename, "exec"), namespace)
        return namespace[self.function]


def entries(exercise: str) -> list:
    """The catalogue of ``exercise`` (``autograder/exercises/<name>/catalogue.py``) as entries of
    the function (or class) it asks for."""
    function = BY_NAME[exercise].subject

    def entry(name, source, mistake=None, words=(), cases="visible"):
        return Entry(name, source, mistake, list(words), cases, function)

    return [entry(*fields) for fields in importlib.import_module(f"autograder.exercises.{exercise}.catalogue").ENTRIES]


TRAIN_LOOP = entries("train_loop")
TRAIN_ACCUMULATE = entries("train_accumulate")
