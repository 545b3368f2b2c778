"""What a worker process does: one submission through nbgrader's own autograde, then its feedback.

Each worker holds one ``NbGraderAPI`` for the whole run (importing nbgrader costs
about a second). Autograding uses the course's nbgrader_config.py, so it runs the
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

from . import failures

WORKER: dict = {}


@dataclass
class Outcome:
    student: str
    ok: bool
    seconds: float
    reason: str = ""
    scores: dict = field(default_factory=dict)  # {notebook: {test cell: score}} (from a Dask worker)


def init(root: str, config, environment: dict, exit_fast: bool = True) -> None:
    """Load nbgrader for the course in ``root`` (``config``: its configuration). A worker
    of ``pool`` exits fast; a Dask worker process (``cluster``) is not ours to end."""
    import gc
    import logging

    os.environ.update(environment)
    # jsonschema (via nbformat) imports rfc3987_syntax, which builds a grammar at import:
    # 0.8 s of CPU per worker, for IRI format checks that nbformat and nbgrader never make
    sys.modules.setdefault("rfc3987_syntax", None)
    # no collections while importing nbgrader (0.1 s less per worker start); then the modules'
    # objects are frozen, so that the full collections while grading skip them
    gc.disable()
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    gc.freeze()
    gc.enable()

    os.chdir(root)
    if exit_fast:
        atexit.register(_exit_now)
    coursedir = CourseDirectory(config=config)
    WORKER["api"] = NbGraderAPI(coursedir=coursedir, config=config)
    WORKER["api"].log.setLevel(logging.ERROR)
    WORKER["db_url"] = coursedir.db_url


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
    result = api.autograde(assignment, student, force=True, create=True)
    if result["success"]:
        feedback = api.generate_feedback(assignment, student, force=True)
        ok = feedback["success"]
        reason = "" if ok else failures.last_line(feedback.get("error", ""))
    else:
        reason = failures.reason_of(result)
        failures.keep_log(Path(api.coursedir.root), assignment, student, result)
        failures.zero_submission(WORKER["db_url"], api.coursedir, assignment, student, reason)
        ok = False
    return Outcome(student, ok, time.perf_counter() - start, reason)


def export(to: str) -> str:
    """Write the grade CSV of the whole course (nbgrader is loaded here)."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin

    coursedir = WORKER["api"].coursedir
    path = Path(coursedir.root) / to
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        CsvExportPlugin(to=str(path)).export(gb)
    return str(path)


def lost(assignment: str, student: str) -> Outcome:
    """A submission whose worker died or stopped twice: 0 on every question, and why."""
    coursedir = WORKER["api"].coursedir
    failures.zero_submission(WORKER["db_url"], coursedir, assignment, student, "lost")
    return Outcome(student, False, 0.0, "lost")
