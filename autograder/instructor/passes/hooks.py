"""nbgrader hooks that keep student-controlled files from leading the grader astray.

* ``quarantine_unsafe_files`` (before autograding a submission): nbgrader copies every
  file of the submitted folder with ``shutil.copy``, which follows links and blocks on a
  FIFO, after listing it with ``os.walk``, which recurses once a level (a chain of 1 100
  nested folders raised ``RecursionError``) and globs the folder again for every file and
  pattern (quadratic in the entries of a folder). What nbgrader must not be given is moved
  (the link itself, never its target; a folder whole, by one rename) to
  ``autograder-logs/<assignment>/quarantine/<student>/``: nothing is lost, nothing is
  followed. That is every link and special file (and a folder named like a notebook, which
  nbgrader would read as one), everything ``files.Walk`` does not look at
  (deeper than ``files.MAX_DEPTH``, a path past ``files.MAX_PATH``, past
  ``files.MAX_ENTRIES`` entries, a folder it cannot read), files and folders past the budget
  (``files.MAX_FILES`` entries, ``files.MAX_BYTES``), and a notebook larger than
  ``files.MAX_NOTEBOOK_BYTES`` (``oversized``), before nbgrader parses it (a 2 GB notebook
  would take many times that in the grading process's memory): plain nbgrader then scores it
  as missing. ``autograder grade`` refuses such a submission before nbgrader starts, with its
  own reason (``too_large``), and leaves the file where it is.
* ``feedback_only`` (after generating feedback): nbgrader copies every other file of the
  autograded folder into the student's feedback. Feedback holds the feedback pages (one per
  notebook of the assignment: ``release_feedback`` releases every page in the folder, so a
  page the student submitted under another name is not kept) and nbgrader's own records of
  the submission (its timestamp and secret, which ``release_feedback`` reads); anything else
  is removed.

Both are set in ``nbgrader_config.py``, so plain nbgrader runs them too.
"""
from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from .. import files
from ..failures import FEEDBACK_RECORDS


def _submission(notebooks: list) -> Path | None:
    return Path(notebooks[0]).parent if notebooks else None


def oversized(folder: Path) -> list:
    """The notebooks of a submitted folder larger than ``files.MAX_NOTEBOOK_BYTES``, where
    nbgrader looks for them: its top level (regular files only: a link is never followed,
    and is set aside anyway)."""
    found = []
    walk = files.Walk(folder, max_depth=0)
    for entry in walk:
        entry.enter = False
        info = entry.info
        if entry.name.endswith(".ipynb") and stat.S_ISREG(info.st_mode) and info.st_size > files.MAX_NOTEBOOK_BYTES:
            found.append(Path(folder) / entry.relative)
    return found


def unsafe(folder: Path) -> list:
    """What of a submitted folder nbgrader must not be given (see the module's docstring), as
    ``(relative path, why)``, outermost first: a folder set aside takes what is in it."""
    walk = files.Walk(folder)
    aside, looked = [], set()
    kept_entries, kept_bytes = 0, 0
    for entry in walk:
        info = entry.info
        if entry.depth == 0:
            looked.add(entry.name)
            if stat.S_ISDIR(info.st_mode) and entry.name.endswith(".ipynb"):  # nbgrader would read it as one
                aside.append((entry.relative, "a folder named like a notebook"))
                entry.enter = False
                continue
        if stat.S_ISDIR(info.st_mode) or (stat.S_ISREG(info.st_mode) and not entry.name.endswith(".ipynb")):
            size = 0 if stat.S_ISDIR(info.st_mode) else info.st_size
            if kept_entries >= files.MAX_FILES or kept_bytes + size > files.MAX_BYTES:
                aside.append((entry.relative, files.OVER_BUDGET))
                entry.enter = False
            else:
                kept_entries, kept_bytes = kept_entries + 1, kept_bytes + size
        elif not stat.S_ISREG(info.st_mode):
            aside.append((entry.relative, "link" if stat.S_ISLNK(info.st_mode) else "special file"))
        elif entry.depth == 0 and info.st_size > files.MAX_NOTEBOOK_BYTES:
            aside.append((entry.relative, files.TOO_LARGE))
    for relative, why in walk.cut:
        if relative != ".":
            aside.append((relative, why))
        elif why == files.TOO_MANY:  # its own listing was cut: what it did not look at goes
            aside += [(name, why) for name in _names(folder) if name not in looked]
    return _outermost(aside)


def _names(folder: Path) -> list:
    with os.scandir(folder) as listing:
        return [item.name for item in listing]


def _outermost(aside: list) -> list:
    """``aside`` without what lies in a folder it also holds (a folder sorts before what is in it)."""
    kept: list = []
    held: set = set()
    for relative, why in sorted(set(aside)):
        parts = relative.split(os.sep)
        if not any(os.sep.join(parts[:n]) in held for n in range(1, len(parts))):
            kept.append((relative, why))
            held.add(relative)
    return kept


def quarantine_unsafe_files(assignment: str, student: str, notebooks: list) -> list:
    folder = _submission(notebooks)
    if folder is None:
        return []
    aside = unsafe(folder)
    if not aside:
        return []
    student_id, assignment_id, root = folder.parent.name, folder.name, folder.parents[2]
    target = _fresh(root / "autograder-logs" / assignment_id / "quarantine", student_id)
    moved, made = [], {target}
    for relative, _ in aside:
        destination = target / relative
        if destination.parent not in made:
            destination.parent.mkdir(parents=True, exist_ok=True)
            made.add(destination.parent)
        try:
            os.rename(folder / relative, destination)
        except FileNotFoundError:  # it vanished since it was looked at
            continue
        moved.append(Path(relative))
    return moved


def _fresh(parent: Path, name: str) -> Path:
    """A new folder ``parent/name`` (``name.1``, ``name.2``, ... if an earlier run made one):
    what is moved goes only into folders made here, so no path into it passes through a link
    set aside before."""
    parent.mkdir(parents=True, exist_ok=True)
    for n in range(10_000):
        folder = parent / (name if n == 0 else f"{name}.{n}")
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue
    raise FileExistsError(f"{parent / name}: 10 000 quarantine folders already")


def feedback_only(assignment: str, student: str, notebooks: list) -> list:
    folder = _submission(notebooks)
    if folder is None:
        return []
    feedback = folder.parents[2] / "feedback" / folder.parent.name / folder.name
    pages = {Path(nb).stem + ".html" for nb in notebooks}  # a submitted page of another name is not feedback
    removed = []
    try:
        entries = _names(feedback)
    except FileNotFoundError:
        return removed
    for name in entries:  # (what nbgrader copied there came from a submitted folder set in order above)
        path = feedback / name
        info = path.lstat()
        page = name in pages
        record = name in FEEDBACK_RECORDS and info.st_size <= 2 ** 16
        if stat.S_ISREG(info.st_mode) and (page or record):
            continue
        if stat.S_ISDIR(info.st_mode):
            removed += [Path(name, e.relative) for e in files.Walk(path) if not stat.S_ISDIR(e.info.st_mode)]
            shutil.rmtree(path)
        else:
            path.unlink()
            removed.append(Path(name))
    return removed
