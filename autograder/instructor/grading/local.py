"""Grading on this machine: ``autograder grade ASSIGNMENT --jobs N``.

The coordinator (this process) starts the judge and the fork server (``kernels.services``)
before anything else, then ``jobs`` worker processes (``pool``), forked with nbgrader
loaded, that each grade one submission at a time (``worker``); one grades the instructor's
own notebook first while the others warm up (``worker.warm_up``). It watches all of them:
a dead or stopped server is replaced, a dead or stopped worker too, and only the
submission it was serving is tried again (once); a worker past its submission's time
budget (``time_budget``) is replaced too, and that submission scores 0 with the reason. A
submission the grader itself failed on (not the notebook's fault) is graded once more,
after the servers are checked.
"""
from __future__ import annotations

from pathlib import Path

from ..kernels.services import Services, kept_out
from .. import time_budget
from ..course_config import setting
from ..passes import self_check
from . import pool, worker


class Local:
    def __init__(self, root: Path, assignment: str, config, jobs: int = 2):
        self.root, self.assignment, self.config, self.jobs = Path(root), assignment, config, jobs
        self.services = self.workers = None

    def start(self, report) -> None:
        self.report = report
        self.services = Services.start(self.root, bool(self.config.JudgedExecute.get("sandbox", True)),
                                       log=self.root / "autograder-logs" / self.assignment / "servers.log",
                                       keep_out=kept_out(self.config), wait=False)
        source = self.root / setting(self.config, "source_directory", "source") / self.assignment
        notebooks = max(1, len(list(source.glob("*.ipynb"))))
        # the workers load nbgrader while the servers load torch; no task reaches a worker
        # before both servers answer
        self.workers = pool.Pool(self.jobs, worker.init, (str(self.root), self.config, self.services.environment()),
                                 on_fault=lambda fault: report.replaced.extend(self.services.ensure_alive()),
                                 task_timeout=time_budget.submission_budget(self.config, notebooks),
                                 preload=(worker.PRELOAD,))
        try:
            self.services.wait_ready()
        except BaseException:  # a server that cannot start, or Ctrl-C meanwhile: nothing is left behind
            self.workers.close()
            self.services.close()
            raise

    def check_instructor(self) -> str:
        """The instructor's notebook graded by one worker while the others warm up (``worker.warm_up``)."""
        tasks = [(worker.self_check, (self.assignment,))] + [(worker.warm_up, (self.assignment,))] * (self.jobs - 1)
        results = list(self.workers.run(tasks))  # (every worker is free again before grading starts)
        shortfalls = next(result for result in results if not _warm_up(result))
        if isinstance(shortfalls, pool.Lost):
            return self_check.lost_sentence(self.assignment, shortfalls.reason)
        return self_check.sentence(self.assignment, shortfalls) if shortfalls else ""

    def grade(self, students: list, report):
        tasks = [(worker.grade_one, (self.assignment, student)) for student in students]
        for result in self.workers.run(tasks):
            if isinstance(result, pool.Lost):
                student, why = result.task[1][1], "overran" if result.reason == "overran" else "lost"
                result = self.refuse(student, why)
            if result.reason == "crashed":  # the grader's own failure, not the notebook's: once more
                report.replaced.extend(self.services.ensure_alive())
                report.retried.append(result.student)
                retried = self.workers.call(worker.grade_one, self.assignment, result.student)
                result = retried if not isinstance(retried, pool.Lost) else result
            if not result.ok:
                report.replaced.extend(self.services.ensure_alive())
            yield result
        report.faults = [(task[1][1], fault) for task, fault in self.workers.faults]

    def refuse(self, student: str, reason: str, detail: str = ""):
        result = self.workers.call(worker.refuse, self.assignment, student, reason, None, detail)
        if isinstance(result, pool.Lost):  # recording its 0 failed as well: the run goes on
            return worker.Outcome(student, False, 0.0, reason)
        return result

    def export(self, to: str) -> str:
        return self.workers.call(worker.export, to)

    def write_report(self) -> tuple:
        written = self.workers.call(worker.write_report, self.assignment)
        return ("", "lost") if isinstance(written, pool.Lost) else written

    def progress_note(self) -> str:
        return ""

    def close(self, report) -> None:
        if self.workers is not None:
            self.workers.close()
        if self.services is not None:
            report.server_cpu = self.services.cpu_seconds()
            self.services.close()


def _warm_up(result) -> bool:
    """Is this the outcome of a warm-up (``worker.warm_up``), not of the check itself?"""
    return isinstance(result, str) or isinstance(result, pool.Lost) and result.task[0] is worker.warm_up
