"""What a worker process does: one submission through nbgrader's own autograde, then its feedback.

Each worker holds one ``NbGraderAPI`` for the whole run. A local run's workers are forked
with nbgrader already imported (``PRELOAD``: 1.6 s of CPU, paid once per run, not once per
worker). Autograding uses the course's nbgrader_config.py, so it runs the
same passes as ``nbgrader autograde``: kernels in the sandbox, points from the judge.
A submission nbgrader cannot grade at all (not JSON, empty, missing) gets 0 on every
question of the notebook and feedback that says why (``failures``).
"""
from __future__ import annotations

import atexit
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import failures

WORKER: dict = {}
PRELOAD = "autograder.instructor.grading.nbgrader_loaded"  # what a local pool's workers are forked with


@dataclass
class Outcome:
    student: str
    ok: bool
    seconds: float
    reason: str = ""
    scores: dict = field(default_factory=dict)  # {notebook: {test cell: score}} (from a Dask worker)
    detail: str = ""  # what the log of a submission whose grading process was lost says beside its reason


def init(root: str, config, environment: dict, exit_fast: bool = True) -> None:
    """Load nbgrader for the course in ``root`` (``config``: its configuration, or that as the
    plain data a pool's worker receives). A worker of ``pool`` exits fast; a Dask worker
    process (``dask``) is not ours to end."""
    import logging

    from traitlets.config import Config

    config = config if isinstance(config, Config) else Config(config)

    os.environ.update(environment)
    # a local run's workers are forked with this loaded (``PRELOAD``); a Dask worker loads it here
    from . import nbgrader_loaded  # noqa: F401
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    quiet_add_submission()
    one_engine_per_database()
    os.chdir(root)
    if exit_fast:
        atexit.register(_exit_now)
    coursedir = CourseDirectory(config=config)
    WORKER["api"] = NbGraderAPI(coursedir=coursedir, config=config)
    WORKER["api"].log.setLevel(logging.ERROR)
    WORKER["db_url"] = coursedir.db_url
    WORKER["config"] = config


def quiet_add_submission() -> None:
    """nbgrader's ``Gradebook.add_submission`` without SQLAlchemy's autoflush while it builds
    the submission. It makes the new submission from the assignment and the student already
    in the session, then reads each notebook's cells to mirror them; every read flushed the
    half-made objects first, and SQLAlchemy 2 warned for each ("Object of type
    <SubmittedNotebook> not in session, add operation along 'Notebook.submissions' will not
    proceed"): six warnings per new student, on the instructor's terminal. Nothing needs
    flushing there: the method adds and commits the whole submission at its end, as before."""
    from nbgrader.api import Gradebook

    add = Gradebook.add_submission
    if getattr(add, "without_autoflush", False):
        return

    def add_submission(self, assignment, student, **kwargs):
        with self.db.no_autoflush:
            return add(self, assignment, student, **kwargs)

    add_submission.without_autoflush = True
    add_submission.__doc__ = add.__doc__
    Gradebook.add_submission = add_submission


_ENGINES: dict = {}  # (database URL, options) → the SQLAlchemy engine this worker's gradebooks use


def one_engine_per_database() -> None:
    """nbgrader's ``Gradebook`` with one SQLAlchemy engine per database for the worker (until
    the next ``init``), not a new one per ``Gradebook``. nbgrader opens the gradebook ten times
    per submission (autograde's set-up, OverwriteCells, SaveAutoGrades, the late penalty,
    feedback's GetGrades, ...), and SQLAlchemy keeps compiled statements per engine: with a
    new engine each time, every query was compiled again, a sixth of what a worker spent on
    a lesson-3 submission outside the kernel. ``Gradebook.close`` still disposes of the
    engine's connections, so nothing stays open between submissions; the compiled statements
    stay."""
    import nbgrader.api as api

    for engine in _ENGINES.values():
        engine.dispose()
    _ENGINES.clear()
    if getattr(api.create_engine, "one_per_database", False):
        return
    create = api.create_engine

    def create_engine(url, **options):
        key = (str(url), tuple(sorted((k, repr(v)) for k, v in options.items())))
        if key not in _ENGINES:
            _ENGINES[key] = create(url, **options)
        return _ENGINES[key]

    create_engine.one_per_database = True
    api.create_engine = create_engine


def _exit_now() -> None:
    """A worker's last act: exit at once instead of tearing down nbgrader's large module
    graph (0.3 s per worker at the end of every run). Its grades and files are all
    committed and closed by then."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def grade_one(assignment: str, student: str) -> Outcome:
    api = WORKER["api"]
    start = time.perf_counter()
    root = Path(api.coursedir.root)
    result = api.autograde(assignment, student, force=True, create=True)
    if result["success"]:
        feedback = api.generate_feedback(assignment, student, force=True)
        ok = feedback["success"]
        reason = "" if ok else failures.last_line(feedback.get("error", ""))
        if ok:
            failures.forget_log(root, assignment, student)
        else:
            failures.keep_log(root, assignment, student, feedback, "feedback")
    else:
        reason = failures.reason_of(result)
        failures.keep_log(root, assignment, student, result, reason)
        failures.zero_submission(WORKER["db_url"], api.coursedir, assignment, student, reason)
        ok = False
    return Outcome(student, ok, time.perf_counter() - start, reason)


def self_check(assignment: str) -> list:
    """The test cells of the instructor's own notebooks of ``assignment`` that do not get full
    marks in this course's pipeline, with the run's servers (``self_check``)."""
    from ..passes import self_check as check

    api = WORKER["api"]
    return check.check(WORKER["config"], Path(api.coursedir.root), assignment, WORKER["db_url"])


def warm_up(assignment: str) -> str:
    """While one worker grades the instructor's notebook (``self_check``), the others do once
    what their first submission would otherwise do first: compile the feedback page's
    templates and render the released notebook's cells (``feedback_exporter._remembered``),
    0.3 s of the first page's 0.33 s. Nothing is written anywhere; a warm-up that fails
    changes nothing (grading does the same work later)."""
    import logging

    import nbformat
    from nbgrader.converters import GenerateFeedback

    api = WORKER["api"]
    try:
        app = GenerateFeedback(coursedir=api.coursedir, parent=api)
        app.log.setLevel(logging.ERROR)
        exporter = app.exporter_class(parent=app, config=app.config)
        released = Path(api.coursedir.root) / api.coursedir.release_directory / assignment
        for notebook in sorted(released.glob("*.ipynb")):
            nb = nbformat.read(str(notebook), as_version=4)
            for cell in nb.cells:  # as GetGrades leaves a graded notebook: a score on each graded cell
                meta = cell.metadata.get("nbgrader", {})
                if meta.get("grade") or meta.get("task"):
                    meta.update(score=0, points=meta.get("points", 0))
            exporter.from_notebook_node(nb, {"nbgrader": {"notebook": notebook.stem, "score": 0, "max_score": 0,
                                                          "late_penalty": 0}})
    except Exception:  # noqa: BLE001  (only a head start is lost)
        return "cold"
    return "warm"


def course_directory(root: str, config):
    """nbgrader's view of the course in ``root`` with ``config`` (a ``Config``, or that as the
    plain data a pool's task carries): what the functions below work on, wherever they run."""
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    config = config if isinstance(config, Config) else Config(config)
    return CourseDirectory(config=config, root=str(root)), config


# The functions below run wherever nbgrader is loaded, with the course named in their
# arguments: a local run calls them in one of its workers, a Dask run in the instructor's
# process (``run.Backend.call``). Each is written once, for both.
def export(root: str, config, to: str) -> str:
    """Write the grade CSV of the whole course: nbgrader's columns, written by the course's
    exporter (``passes.export``: a student id with a comma, or one a spreadsheet reads as a
    formula, stays one field of text; nbgrader's own wrote fields as they were)."""
    from nbgrader.api import Gradebook

    from ..passes.export import CellCsvExportPlugin

    coursedir, _ = course_directory(root, config)
    path = Path(root) / to
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        CellCsvExportPlugin().export_summary(gb, str(path))
    return str(path)


def write_report(root: str, config, assignment: str) -> tuple:
    """The class report of ``assignment`` and the course page: (the assignment page's path, "")
    or ("", why it could not be written): grading is done by then, and a report that fails must
    not hide its results."""
    import traceback

    from ..reports import pages as report

    _, config = course_directory(root, config)
    try:
        pages = report.write_all(Path(root), config, [assignment])
    except Exception as error:  # noqa: BLE001  (said to the instructor, with where it happened)
        where = traceback.extract_tb(error.__traceback__)[-1]
        return "", f"{type(error).__name__}: {error} ({Path(where.filename).name}, line {where.lineno})"
    return str(pages[0]), ""


LOST = {"lost": "the grading process died or was stopped twice while grading this submission",
        "overran": "grading this submission took longer than its time budget; its grading process was killed",
        "memory": "grading this submission took more memory than a grading process may use; its grading process "
                  "was ended",
        "too_large": "a notebook of this submission is larger than grading reads; it was not graded",
        "unreadable": "the grader could not set this submission's folder in order before grading; it was not graded"}


def refuse(root: str, config, assignment: str, student: str, reason: str, detail: str = "") -> Outcome:
    """A submission not graded at all (``reason``: a key of ``LOST``; ``detail`` for its log):
    0 on every question, a feedback page that says why, and nbgrader's log for the instructor."""
    coursedir, _ = course_directory(root, config)
    failures.keep_log(Path(root), assignment, student, {"log": LOST[reason], "error": detail}, reason)
    failures.zero_submission(coursedir.db_url, coursedir, assignment, student, reason)
    return Outcome(student, False, 0.0, reason)
