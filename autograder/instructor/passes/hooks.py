"""nbgrader hooks that keep student-controlled files from leading the grader astray.

* ``quarantine_unsafe_files`` (before autograding a submission): nbgrader copies every
  file of the submitted folder with ``shutil.copy``, which follows links and blocks on a
  FIFO. Links and special files, and files beyond the size budget, are moved (the link
  itself, never its target) to ``autograder-logs/<assignment>/quarantine/<student>/``:
  nothing is lost, nothing is followed. A notebook larger than ``files.MAX_NOTEBOOK_BYTES``
  (``oversized``) is moved there too, before nbgrader parses it (a 2 GB notebook would take
  many times that in the grading process's memory): plain nbgrader then scores it as
  missing. ``autograder grade`` refuses such a submission before nbgrader starts, with its
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
import stat
from pathlib import Path

from .. import files
from ..grading.failures import FEEDBACK_RECORDS


def _submission(notebooks: list) -> Path | None:
    return Path(notebooks[0]).parent if notebooks else None


def oversized(folder: Path) -> list:
    """The notebooks of a submitted folder larger than ``files.MAX_NOTEBOOK_BYTES`` (regular
    files only: a link is never followed, and is set aside anyway)."""
    found = []
    for path in sorted(Path(folder).rglob("*.ipynb")) if Path(folder).is_dir() else []:
        info = path.lstat()
        if stat.S_ISREG(info.st_mode) and info.st_size > files.MAX_NOTEBOOK_BYTES:
            found.append(path)
    return found


def quarantine_unsafe_files(assignment: str, student: str, notebooks: list) -> list:
    folder = _submission(notebooks)
    if folder is None:
        return []
    student_id, assignment_id, root = folder.parent.name, folder.name, folder.parents[2]
    target = root / "autograder-logs" / assignment_id / "quarantine" / student_id
    moved = []
    unsafe = files.unsafe_entries(folder) + oversized(folder)
    budget_files, budget_bytes = files.MAX_FILES, files.MAX_BYTES
    for here, _, names in os.walk(folder):
        for name in sorted(names):
            path = Path(here) / name
            info = path.lstat()
            if stat.S_ISREG(info.st_mode) and not name.endswith(".ipynb"):
                budget_files -= 1
                budget_bytes -= info.st_size
                if budget_files < 0 or budget_bytes < 0:
                    unsafe.append(path)
    for path in unsafe:
        destination = target / path.relative_to(folder)
        destination.parent.mkdir(parents=True, exist_ok=True)
        os.rename(path, destination)
        moved.append(path.relative_to(folder))
    return moved


def feedback_only(assignment: str, student: str, notebooks: list) -> list:
    folder = _submission(notebooks)
    if folder is None:
        return []
    feedback = folder.parents[2] / "feedback" / folder.parent.name / folder.name
    pages = {Path(nb).stem + ".html" for nb in notebooks}  # a submitted page of another name is not feedback
    removed = []
    for here, dirs, names in os.walk(feedback, topdown=False):
        for name in names + dirs:
            path = Path(here) / name
            mode = path.lstat().st_mode
            page = name in pages
            record = name in FEEDBACK_RECORDS and path.lstat().st_size <= 2 ** 16
            keep = stat.S_ISREG(mode) and Path(here) == feedback and (page or record)
            if stat.S_ISDIR(mode):
                if not any(path.iterdir()):
                    path.rmdir()
                continue
            if not keep:
                path.unlink()
                removed.append(path.relative_to(feedback))
    return removed
