"""Find the student's line behind an event, so every message can point at it.

Student code is whatever is not PyTorch, the Python standard library, an installed
package or this project: in a notebook that is the cell (IPython names it
``/tmp/ipykernel_*/….py`` and keeps its text in ``linecache``). What is installed is
read from the import path itself (every ``sys.path`` folder but the working folder, links
resolved), so torch found through ``PYTHONPATH`` or a linked environment is not taken for
the student's code.
"""
from __future__ import annotations

import functools
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


MAX_CODE = 300  # characters of a line quoted in a message


@dataclass(frozen=True)
class Location:
    filename: str
    line: int

    @property
    def code(self) -> str:
        """The line's code, at most ``MAX_CODE`` characters (what the judge accepts of a report)."""
        code = linecache.getline(self.filename, self.line).strip()
        return code if len(code) <= MAX_CODE else code[:MAX_CODE - 1] + "…"

    def describe(self) -> str:
        return messages.text("general.where", line=self.line, code=self.code)


def describe(location: Location | None) -> str:
    return location.describe() if location else messages.text("general.where_unknown")


@functools.cache
def _installed() -> tuple:
    """The folders of the import path (links resolved), but the working folder's."""
    here = os.path.realpath(os.getcwd())
    found = {os.path.join(os.path.realpath(p), "") for p in sys.path
             if p not in ("", ".") and os.path.isdir(p) and os.path.realpath(p) != here}
    return tuple(found | set(_NOT_STUDENT))


@functools.lru_cache(maxsize=4096)
def is_student_file(filename: str) -> bool:
    if filename.startswith("<frozen") or filename.startswith(_NOT_STUDENT):
        return False
    if filename.startswith("<"):  # a cell compiled under a name of its own (``<cell …>``, ``<string>``)
        return True
    return not os.path.realpath(filename).startswith(_installed())


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
