"""Find the student's line behind an event, so every message can point at it.

Student code is whatever is not PyTorch, the Python standard library, an installed
package or this project: in a notebook that is the cell (IPython names it
``/tmp/ipykernel_*/….py`` and keeps its text in ``linecache``).
"""
from __future__ import annotations

import linecache
import os
import sys
import sysconfig
import traceback
from dataclasses import dataclass

from .. import messages

_PROJECT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_NOT_STUDENT = tuple(
    os.path.join(p, "") for p in {
        os.path.join(_PROJECT, "autograder"),
        os.path.join(_PROJECT, "lessons"),
        sysconfig.get_paths()["stdlib"],
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths()["platlib"],
    }
)


@dataclass(frozen=True)
class Location:
    filename: str
    line: int

    @property
    def code(self) -> str:
        return linecache.getline(self.filename, self.line).strip()

    def describe(self) -> str:
        return messages.text("general.where", line=self.line, code=self.code)


def describe(location: Location | None) -> str:
    return location.describe() if location else messages.text("general.where_unknown")


def is_student_file(filename: str) -> bool:
    return not (filename.startswith(_NOT_STUDENT) or filename.startswith("<frozen"))


def current() -> Location | None:
    """The innermost student frame on the current stack."""
    frame = sys._getframe(1)
    while frame is not None:
        if is_student_file(frame.f_code.co_filename):
            return Location(frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return None


def of_exception(exc: BaseException) -> Location | None:
    """The innermost student frame in an exception's traceback."""
    found = None
    for frame, line in traceback.walk_tb(exc.__traceback__):
        if is_student_file(frame.f_code.co_filename):
            found = Location(frame.f_code.co_filename, line)
    return found
