"""Which submissions a run may skip: those graded before whose files have not changed since.

Grading a class can take an hour, and a run can be interrupted (the instructor's laptop
sleeps, the connection to a cluster drops) or repeated after ``nbgrader collect --update``
brought a few new submissions: the next run should grade only what is missing or new.
So, once a submission's gradebook rows, autograded notebook and feedback are all written,
the run records the digest of its submitted files and of the assignment's source folder
(``autograder-logs/<assignment>/graded/<student>.json``, beside nbgrader's logs, never
copied to a student); a student's record is removed before they are graded again. A later
run skips a student whose record matches the files as they are now, whose feedback exists
and who has a submission in the gradebook. ``--force`` grades everyone again; ``--student``
always grades the students it names. A submission that could not be graded for a passing
reason (a grading process lost twice, a crash) is not recorded, so the next run tries it
again. Both ``autograder grade --jobs`` and ``--scheduler`` use this; what it cannot see
(a new due date, another ``nbgrader_config.py``) needs ``--force``.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .. import files

# why a submission scored 0 when the reason lies in the submission itself (recorded: the
# same files give the same result); "" is a submission graded normally
RECORDED_REASONS = {"", "not_json", "invalid", "missing", "too_large"}
# what nbgrader leaves out of an assignment's files (CourseDirectory.ignore)
IGNORED = (".ipynb_checkpoints", "__pycache__")


def _ignored(name: str) -> bool:
    return any(part in IGNORED for part in Path(name).parts) or name.endswith(".pyc")


def digest(found: list) -> str:
    """One digest of files as ``files.read_regular`` gives them (their names and contents)."""
    h = hashlib.sha256()
    for name, _mode, data in found:
        # a file name need not be UTF-8: surrogateescape gives back its bytes, never an error
        h.update(name.encode("utf-8", "surrogateescape") + b"\0" + str(len(data)).encode() + b"\0")
        h.update(data)
    return h.hexdigest()


def submitted_files(root: Path, assignment: str, student: str) -> list:
    """The submitted files as data. A folder past the read budget (more than ``files.MAX_FILES``
    files, or ``files.MAX_BYTES``) or that the walk does not read whole (``files.Walk``: too
    deep, too many entries) could hide a changed notebook from its digest: it gets a digest of
    its own each time, and is graded again each run. So does one that cannot be read at all
    (whatever the error: the run's refusal names it for that student alone)."""
    try:
        found, copied = files.read_regular(Path(root) / "submitted" / student / assignment)
    except Exception:  # noqa: BLE001  (graded again, and refused with the error: ``run.refusal``)
        return [["\0not read", 0, os.urandom(16)]]
    if copied.cut or any(why == files.OVER_BUDGET for _, why in copied.skipped):
        found.append(["\0not read whole", 0, os.urandom(16)])
    return found


def source_files(root: Path, assignment: str) -> list:
    return files.read_regular(Path(root) / "source" / assignment, skip=_ignored)[0]


def in_gradebook(config, assignment: str) -> set:
    """The students who have a submission of ``assignment`` in the gradebook ``config``
    names (one query)."""
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=config)
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        try:
            return {s.student_id for s in gb.find_assignment(assignment).submissions}
        except MissingEntry:
            return set()


class Records:
    """The records of one assignment's graded submissions."""

    def __init__(self, root: Path, assignment: str, source_digest: str):
        self.root = Path(root)
        self.assignment = assignment
        self.source = source_digest
        self.folder = self.root / "autograder-logs" / assignment / "graded"

    def _path(self, student: str) -> Path:
        return self.folder / f"{student}.json"

    def matches(self, student: str, submission_digest: str) -> bool:
        """Recorded with these very files, and its feedback is there."""
        try:
            record = json.loads(self._path(student).read_text())
        except (OSError, ValueError):
            return False
        feedback = self.root / "feedback" / student / self.assignment
        return (record == {"submission": submission_digest, "source": self.source}
                and any(feedback.glob("*.html")))

    def forget(self, student: str) -> None:
        self._path(student).unlink(missing_ok=True)

    def keep(self, student: str, submission_digest: str, outcome) -> None:
        """Record a submission whose grading is complete (``outcome`` from ``worker``)."""
        if outcome.ok or outcome.reason in RECORDED_REASONS - {""}:
            self.folder.mkdir(parents=True, exist_ok=True)
            path = self._path(student)
            partial = path.with_suffix(".partial")
            partial.write_text(json.dumps({"submission": submission_digest, "source": self.source}))
            partial.replace(path)


def plan(root: Path, assignment: str, students: list, force: bool, gradebook) -> tuple:
    """``(records, to grade: [(student, digest)], skipped: [student])``. ``gradebook()`` gives
    the students with a submission in the gradebook; it is called only if some record
    matches (a first run does not open the gradebook)."""
    records = Records(root, assignment, digest(source_files(root, assignment)))
    todo, maybe = [], []
    for student in students:
        current = digest(submitted_files(root, assignment, student))
        (maybe if not force and records.matches(student, current) else todo).append((student, current))
    skipped = []
    if maybe:
        present = gradebook()
        for student, current in maybe:
            (skipped.append(student) if student in present else todo.append((student, current)))
    order = {student: i for i, student in enumerate(students)}
    todo.sort(key=lambda item: order[item[0]])
    return records, todo, skipped
