"""Grading on this machine: ``autograder grade ASSIGNMENT --jobs N``.

The coordinator (this process) starts the judge and the fork server (``kernels.services``)
before anything else, then ``jobs`` worker processes (``pool``), forked with nbgrader
loaded, that each grade one submission at a time (``worker``); one grades the instructor's
own notebook first while the others warm up (``worker.warm_up``). It watches all of them:
a dead or stopped server is replaced, a dead or stopped worker too, and only the
submission it was serving is tried again (once); a worker past its submission's time
budget (``time_budget``) or past its memory (``worker_memory``) is replaced too, and that
submission scores 0 with the reason (``run.settled``). The servers are checked after every
submission that failed, so a submission the grader itself failed on is graded once more
(``run.grade``) with servers that answer.
"""
from __future__ import annotations

from pathlib import Path

from ..kernels.services import Services, kept_out
from .. import time_budget
from ..course_config import setting
from ..passes import self_check
from . import pool, worker, worker_memory


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
                                 preload=(worker.PRELOAD,), memory_mb=worker_memory.limit_mb(self.config))
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
            why = shortfalls.reason
            if why == "memory":
                from ... import messages

                why = messages.text("cli.process_memory", limit=self.workers.memory_mb)
            return self_check.lost_sentence(self.assignment, why)
        return self_check.sentence(self.assignment, shortfalls) if shortfalls else ""

    def grade(self, students: list, report):
        tasks = [(worker.grade_one, (self.assignment, student)) for student in students]
        for result in self.workers.run(tasks):
            if isinstance(result, pool.Lost):  # scores 0 with the reason (``run.settled``)
                result = lost(result, self.workers.memory_mb)
            if not result.ok:
                report.replaced.extend(self.services.ensure_alive())
            yield result
        report.faults = [(task[1][1], fault) for task, fault in self.workers.faults]

    def call(self, function, *args):
        result = self.workers.call(function, *args)
        return None if isinstance(result, pool.Lost) else result

    def progress_note(self) -> str:
        return ""

    def close(self, report) -> None:
        if self.workers is not None:
            self.workers.close()
        if self.services is not None:
            report.server_cpu = self.services.cpu_seconds()
            self.services.close()


def lost(result: pool.Lost, memory_mb: int | None) -> worker.Outcome:
    """The outcome of a submission whose worker the pool lost (``pool.Lost``), to be written."""
    reason = {"overran": "overran", "memory": "memory"}.get(result.reason, "lost")
    detail = worker_memory.detail(memory_mb) if reason == "memory" else ""
    return worker.Outcome(result.task[1][1], False, 0.0, reason, detail=detail)


def _warm_up(result) -> bool:
    """Is this the outcome of a warm-up (``worker.warm_up``), not of the check itself?"""
    return isinstance(result, str) or isinstance(result, pool.Lost) and result.task[0] is worker.warm_up
