"""Grade a whole class: the one grading loop, whatever grades the submissions.

``grade`` decides what to grade (every submission that is new or changed since it was
graded, ``rerun``; never a folder whose name is not a plain student id, ``plain_ids``),
refuses a submission that cannot be read before anything starts (a notebook past
``files.MAX_NOTEBOOK_BYTES``, a folder that cannot be set in order: ``refusal``), has the
backend grade the instructor's own notebook first (``self_check``: if it falls short, nobody
is graded and ``Report.refused`` says why), then every submission, recording each outcome as
it comes (``rerun``), and ends with the CSV export, the class report and the class's most
common mistakes. A change to how a submission is graded is made here, once, and so are the
rules for what goes wrong, whatever the backend:

* a submission whose grading process was lost (it died or stopped twice, ran past its time
  budget, or past its memory, ``worker_memory``) scores 0 with the reason and its log
  (``worker.refuse``);
* a submission the grader itself failed on (``crashed``: not the notebook's fault) is graded
  once more, after every other submission (the servers are checked after each failure), on
  the same backend.

A backend is where submissions are graded: ``local.Local`` (worker processes on this
machine, ``autograder grade --jobs N``) or ``dask.Dask`` (a Dask cluster's workers,
``--scheduler``). It grades, runs a function where nbgrader is loaded (``Backend.call``), and
reports what happened to its machinery (``Backend``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Protocol

from .. import student_ids
from ..passes import hooks
from ..reports import summary
from . import progress, rerun, worker


@dataclass
class Report:
    assignment: str
    outcomes: list = field(default_factory=list)
    seconds: float = 0.0
    mistakes: list = field(default_factory=list)  # (mistake id, number of students)
    exported: str = ""
    faults: list = field(default_factory=list)  # (student, what happened to the process grading it)
    replaced: list = field(default_factory=list)  # servers replaced during the run
    retried: list = field(default_factory=list)  # students graded again after the grader failed on them
    skipped: list = field(default_factory=list)  # students graded before, unchanged since (``rerun``)
    server_cpu: dict = field(default_factory=dict)  # CPU seconds of the judge and the fork server
    page: str = ""  # the class report (reports/<assignment>.html)
    page_error: str = ""  # why the class report could not be written
    refused: str = ""  # why nobody was graded (the instructor's own notebook fell short: ``self_check``)
    not_plain: list = field(default_factory=list)  # (folder name, why): submissions of no id the course accepts


class Backend(Protocol):
    """Where the submissions of a run are graded."""

    def start(self, report: Report) -> None:
        """Start what grading needs (servers, workers; a cluster says what it found)."""

    def check_instructor(self) -> str:
        """Grade the instructor's own notebooks: "" if they get full marks, else the sentence."""

    def grade(self, students: list, report: Report) -> Iterator:
        """Grade the named students' submissions; yield each ``worker.Outcome`` as it is
        written to the course folder and the gradebook, or, for a submission whose grading
        process was lost, with its reason (a ``worker.LOST`` key) and nothing written yet
        (``settled`` writes it). What happened to the machinery goes into ``report`` (faults,
        replaced)."""

    def call(self, function, *args):
        """``function(*args)`` where nbgrader is loaded (one of ``worker``'s functions that
        take the course's folder and configuration); None if that process was lost."""

    def progress_note(self) -> str:
        """What the progress bar adds (a cluster: how many workers are connected)."""

    def close(self, report: Report) -> None:
        """Stop everything ``start`` started (also after Ctrl-C)."""


def submitted_students(root: Path, assignment: str) -> list:
    base = root / "submitted"
    return sorted(p.name for p in base.iterdir() if (p / assignment).is_dir()) if base.is_dir() else []


def plain_ids(students: list) -> tuple:
    """``(the plain ids, [(every other folder name, why)])``: a submission folder's name becomes
    a student id in the gradebook, in file names and on every page (formgrader's included),
    so a name that is not a plain id (``student_ids``: markup, a comma, an escape sequence)
    is not graded, and the run says which and why; the others are graded as usual."""
    plain, refused = [], []
    for student in students:
        why = student_ids.refusal(student)
        if why:
            refused.append((student, why))
        else:
            plain.append(student)
    return plain, refused


def plan(root: Path, assignment: str, students: list | None, config, force: bool) -> tuple:
    """What a run grades: the named students (always), or every submission that is new or
    changed since it was graded (all of them with ``force``); see ``rerun``. Returns
    ``(everyone considered, records, to grade: [(student, digest)], skipped, not plain)``
    (not plain: the submissions not graded, ``plain_ids``)."""
    everyone, refused = plain_ids(students or submitted_students(root, assignment))
    records, todo, skipped = rerun.plan(root, assignment, everyone, force or bool(students),
                                        lambda: rerun.in_gradebook(config, assignment))
    return everyone, records, todo, skipped, refused


def grade(root: Path, assignment: str, backend: Backend, config, students: list | None = None,
          force: bool = False, show_progress=progress.show, export_to: str | None = "grades.csv",
          write_report: bool = True) -> Report:
    """Grade every (or the named) student's submission that is new or changed since it was
    graded (``force``: every one) with ``backend``, then give feedback, export the grades and
    write the class report (see the module's docstring)."""
    root = Path(root).resolve()
    report = Report(assignment)
    started = time.perf_counter()
    students, records, todo, report.skipped, report.not_plain = plan(root, assignment, students, config, force)
    if not todo:
        return finish(report, root, students, started)
    backend.start(report)
    try:
        report.refused = backend.check_instructor()
        if report.refused:
            return finish(report, root, students, started)
        def record(outcome) -> None:
            _record(report, records, outcome)
            if show_progress:
                show_progress(len(report.outcomes), len(todo), sum(not o.ok for o in report.outcomes), started,
                              extra=backend.progress_note())

        readable = []
        for student, _ in todo:
            records.forget(student)
            reason, detail = refusal(root, assignment, student)
            if reason:
                record(refuse(backend, root, config, assignment, student, reason, detail))
            else:
                readable.append(student)
        crashed = []
        for outcome in backend.grade(readable, report):
            if outcome.reason == "crashed":  # the grader's own failure: once more, after the others
                crashed.append(outcome.student)
            else:
                record(settled(backend, root, config, assignment, outcome))
        if crashed:
            report.retried.extend(crashed)
            for outcome in backend.grade(crashed, report):
                record(settled(backend, root, config, assignment, outcome))
        if export_to:
            report.exported = backend.call(worker.export, str(root), config, export_to) or ""
        if write_report:
            report.page, report.page_error = backend.call(worker.write_report, str(root), config, assignment) \
                or ("", "its process was lost")
    finally:
        backend.close(report)
    return finish(report, root, students, started)


def refuse(backend: Backend, root: Path, config, assignment: str, student: str, reason: str,
           detail: str = "") -> "worker.Outcome":
    """0 for a submission that is not graded at all, and why (``worker.refuse``), written where
    nbgrader is loaded; if that process is lost too, the run goes on with the outcome alone."""
    refused = backend.call(worker.refuse, str(root), config, assignment, student, reason, detail)
    return refused or worker.Outcome(student, False, 0.0, reason)


def settled(backend: Backend, root: Path, config, assignment: str, outcome) -> "worker.Outcome":
    """``outcome``, with the 0 of a submission whose grading process was lost written (the one
    place this happens, whatever lost it)."""
    if outcome.reason not in worker.LOST:
        return outcome
    return refuse(backend, root, config, assignment, outcome.student, outcome.reason, outcome.detail)


def refusal(root: Path, assignment: str, student: str) -> tuple:
    """``(reason, detail)`` for a submission that is not graded at all (a ``worker.LOST``
    key), or ``("", "")``: a notebook past ``files.MAX_NOTEBOOK_BYTES`` (``too_large``, the
    file left where it is), else what nbgrader must not be given is set aside now, as its hook
    would (``hooks.quarantine_unsafe_files``). Whatever goes wrong with one submission here is
    that submission's failure (``unreadable``, the error in its log), never the run's."""
    folder = root / "submitted" / student / assignment
    try:
        if hooks.oversized(folder):
            return "too_large", ""
        hooks.quarantine_unsafe_files(assignment, student, [str(folder / f"{assignment}.ipynb")])
    except Exception as error:  # noqa: BLE001  (this submission's failure, named in the report)
        return "unreadable", f"{type(error).__name__}: {error}"
    return "", ""


def _record(report: Report, records, outcome) -> None:
    """An outcome, and (for a complete one) the digest of the files it was graded from, as they
    are now: after the passes set links, special and oversized files aside."""
    report.outcomes.append(outcome)
    files = rerun.submitted_files(records.root, records.assignment, outcome.student)
    records.keep(outcome.student, rerun.digest(files), outcome)


def finish(report: Report, root: Path, students: list, started: float) -> Report:
    report.mistakes = summary.common_mistakes(root, report.assignment, students)
    report.seconds = time.perf_counter() - started
    return report
