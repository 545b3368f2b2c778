"""Grade a whole class: every submission of an assignment through nbgrader's own pipeline,
in parallel, then feedback and the CSV export.

The coordinator (this process) starts the judge and the fork server (``services``)
before anything else, then ``jobs`` worker processes (``pool``) that each grade one
submission at a time (``worker``), once the instructor's own notebooks got full marks in
the same pipeline (``self_check``: else nobody is graded, and ``Report.refused`` says why). It watches all of them: a dead or stopped server is
replaced, a dead or stopped worker too, and only the submission it was serving is tried
again (once); a worker past its submission's time budget (``time_budget``) is replaced too,
and that submission scores 0. Submissions graded before and unchanged since are skipped
(``rerun``).
``cluster`` grades on a Dask cluster instead, with the same configuration, plan and report.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ..kernels.services import Services, kept_out
from ..reports import summary
from . import pool, preflight, progress, rerun, self_check, time_budget, worker


@dataclass
class Report:
    assignment: str
    outcomes: list = field(default_factory=list)
    seconds: float = 0.0
    mistakes: list = field(default_factory=list)  # (mistake id, number of students)
    exported: str = ""
    faults: list = field(default_factory=list)  # (student, what happened to its worker)
    replaced: list = field(default_factory=list)  # servers replaced during the run
    retried: list = field(default_factory=list)  # students graded again after the grader failed on them
    skipped: list = field(default_factory=list)  # students graded before, unchanged since (``rerun``)
    server_cpu: dict = field(default_factory=dict)  # CPU seconds of the judge and the fork server
    page: str = ""  # the class report (reports/<assignment>.html)
    page_error: str = ""  # why the class report could not be written
    refused: str = ""  # why nobody was graded (the instructor's own notebook fell short: ``self_check``)


def sqlite_with_timeout(db_url: str) -> str:
    """Let SQLite writers wait for each other instead of failing with 'database is locked'."""
    if db_url.startswith("sqlite:") and "timeout=" not in db_url:
        return db_url + ("&" if "?" in db_url else "?") + "timeout=120"
    return db_url


def course_config(root: Path, db_url: str | None = None, timeout: int | None = None, sandbox: bool = True):
    """The configuration nbgrader itself would use in ``root``: every ``nbgrader_config.py`` on
    Jupyter's config path (system, environment, the instructor's ~/.jupyter: the nearer wins),
    then the course's own, which wins over all of them."""
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config import Config
    from traitlets.config.loader import ConfigFileNotFound, PyFileConfigLoader

    config = Config()
    for folder in [*reversed(jupyter_config_path()), str(root)]:
        try:
            config.merge(PyFileConfigLoader("nbgrader_config.py", path=folder).load_config())
        except ConfigFileNotFound:
            continue
    config.CourseDirectory.root = str(root)
    if db_url:
        config.CourseDirectory.db_url = db_url
    if "db_url" not in config.CourseDirectory:  # nbgrader's own default
        config.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}"
    config.CourseDirectory.db_url = sqlite_with_timeout(config.CourseDirectory.db_url)
    config.JudgedExecute.sandbox = sandbox
    if timeout:
        config.JudgedExecute.timeout = timeout
    return config


def submitted_students(root: Path, assignment: str) -> list:
    base = root / "submitted"
    return sorted(p.name for p in base.iterdir() if (p / assignment).is_dir()) if base.is_dir() else []


def plan(root: Path, assignment: str, students: list | None, config, force: bool) -> tuple:
    """What a run grades: the named students (always), or every submission that is new or
    changed since it was graded (all of them with ``force``); see ``rerun``. Returns
    ``(everyone considered, records, to grade: [(student, digest)], skipped)``."""
    everyone = students or submitted_students(root, assignment)
    records, todo, skipped = rerun.plan(root, assignment, everyone, force or bool(students),
                                        lambda: rerun.in_gradebook(config, assignment))
    return everyone, records, todo, skipped


def grade(root: Path, assignment: str, jobs: int = 2, students: list | None = None,
          db_url: str | None = None, timeout: int | None = None, sandbox: bool = True,
          show_progress=progress.show, export_to: str | None = "grades.csv", write_report: bool = True,
          force: bool = False) -> Report:
    """Autograde, then give feedback to, every (or the named) student's submission that is
    new or changed since it was graded (``force``: every one), export the grades and write the
    class report. The main process only coordinates: the workers hold nbgrader."""
    root = Path(root).resolve()
    report = Report(assignment)
    started = time.perf_counter()
    config = course_config(root, db_url, timeout, sandbox)
    students, records, todo, report.skipped = plan(root, assignment, students, config, force)
    if not todo:
        return finish(report, root, students, started)
    services = Services.start(root, sandbox, log=root / "autograder-logs" / assignment / "servers.log",
                              keep_out=kept_out(config))
    try:
        source = root / preflight.setting(config, "source_directory", "source") / assignment
        notebooks = max(1, len(list(source.glob("*.ipynb"))))
        workers = pool.Pool(jobs, worker.init, (str(root), config, services.environment()),
                            on_fault=lambda fault: report.replaced.extend(services.ensure_alive()),
                            task_timeout=time_budget.submission_budget(config, notebooks))
    except BaseException:  # Ctrl-C while the workers start: the servers stop too
        services.close()
        raise
    digests = dict(todo)
    try:
        shortfalls = workers.call(worker.self_check, assignment)
        if isinstance(shortfalls, pool.Lost):
            report.refused = self_check.lost_sentence(assignment, shortfalls.reason)
        elif shortfalls:
            report.refused = self_check.sentence(assignment, shortfalls)
        if report.refused:
            return finish(report, root, students, started)
        for student in digests:
            records.forget(student)
        tasks = [(worker.grade_one, (assignment, student)) for student in digests]
        for result in workers.run(tasks):
            if isinstance(result, pool.Lost):
                student, why = result.task[1][1], "overran" if result.reason == "overran" else "lost"
                result = workers.call(worker.lost, assignment, student, why)
                if isinstance(result, pool.Lost):  # recording its 0 failed as well: the run goes on
                    result = worker.Outcome(student, False, 0.0, why)
            if result.reason == "crashed":  # the grader's own failure, not the notebook's: once more
                report.replaced.extend(services.ensure_alive())
                report.retried.append(result.student)
                retried = workers.call(worker.grade_one, assignment, result.student)
                result = retried if not isinstance(retried, pool.Lost) else result
            report.outcomes.append(result)
            records.keep(result.student, digests[result.student], result)
            if not result.ok:
                report.replaced.extend(services.ensure_alive())
            if show_progress:
                show_progress(len(report.outcomes), len(todo), sum(not o.ok for o in report.outcomes), started)
        report.faults = [(task[1][1], fault) for task, fault in workers.faults]
        if export_to:
            report.exported = workers.call(worker.export, export_to)
        if write_report:
            written = workers.call(worker.write_report, assignment)
            report.page, report.page_error = ("", "lost") if isinstance(written, pool.Lost) else written
    finally:
        workers.close()
        report.server_cpu = services.cpu_seconds()
        services.close()
    return finish(report, root, students, started)


def finish(report: Report, root: Path, students: list, started: float) -> Report:
    report.mistakes = summary.common_mistakes(root, report.assignment, students)
    report.seconds = time.perf_counter() - started
    return report
