"""Worker processes that grade one submission at a time, watched by the coordinator.

``concurrent.futures`` gives up on every pending task when one worker dies; a grading run
must not. Here each worker is its own process with its own pipe. The coordinator hands
out one task at a time and watches every worker: one that dies (killed, out of memory)
or is stopped (SIGSTOP) is replaced, and its task is tried once more in a fresh worker;
a task that kills two workers is reported as failed. A task that runs past ``task_timeout``
seconds has its worker killed and replaced too, and is reported at once (it would only
overrun again). No other task is touched.
"""
from __future__ import annotations

import multiprocessing
import time
from dataclasses import dataclass
from multiprocessing.connection import wait


@dataclass
class Lost:
    """A task whose worker died or stopped twice."""
    task: tuple
    reason: str


def _serve(conn, initializer, initargs) -> None:
    initializer(*initargs)
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        function, args = task
        conn.send(function(*args))


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "X"


class Worker:
    def __init__(self, context, initializer, initargs):
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, initializer, initargs), daemon=True)
        self.process.start()
        theirs.close()
        self.task = None
        self.attempt = 0
        self.since = 0.0  # when it was handed its task

    def give(self, task, attempt: int) -> None:
        self.task, self.attempt, self.since = task, attempt, time.monotonic()
        self.conn.send(task)

    def stopped_or_dead(self) -> str | None:
        if not self.process.is_alive():
            return "died"
        if _state(self.process.pid) in ("T", "t"):
            return "was stopped"
        return None

    def overran(self, seconds: float | None) -> str | None:
        return "overran" if seconds and time.monotonic() - self.since > seconds else None

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()


class Pool:
    """``jobs`` workers; ``run`` gives each task to the next free worker."""

    def __init__(self, jobs: int, initializer, initargs=(), on_fault=None, task_timeout: float | None = None):
        self.task_timeout = task_timeout
        self.context = multiprocessing.get_context("spawn")
        self.initializer, self.initargs = initializer, initargs
        self.on_fault = on_fault or (lambda reason: None)
        self.workers = [self._new() for _ in range(jobs)]
        self.faults: list = []

    def _new(self) -> Worker:
        return Worker(self.context, self.initializer, self.initargs)

    def call(self, function, *args):
        """Run one task on the first worker and wait for it (set-up work before the run)."""
        return list(self.run([(function, args)]))[0]

    def run(self, tasks: list):
        """Yield each task's result (or a ``Lost``) as it finishes, in completion order."""
        pending = [(task, 0) for task in tasks]
        busy = 0
        while pending or busy:
            for i, worker in enumerate(self.workers):
                if worker.task is None and pending:
                    worker.give(*pending.pop(0))
                    busy += 1
            ready = wait([w.conn for w in self.workers if w.task is not None], timeout=0.5)
            for i, worker in enumerate(self.workers):
                if worker.task is None:
                    continue
                if worker.conn in ready:
                    try:
                        result = worker.conn.recv()
                    except (EOFError, OSError):
                        result = None
                        fault = "died"
                    else:
                        worker.task, busy = None, busy - 1
                        yield result
                        continue
                else:
                    fault = worker.stopped_or_dead() or worker.overran(self.task_timeout)
                    if fault is None:
                        continue
                task, attempt = worker.task, worker.attempt
                busy -= 1
                worker.kill()
                self.workers[i] = self._new()
                self.faults.append((task, fault))
                self.on_fault(fault)
                if attempt == 0 and fault != "overran":
                    pending.insert(0, (task, 1))
                else:
                    yield Lost(task, fault)

    def close(self) -> None:
        for worker in self.workers:
            try:
                worker.conn.send(None)
            except OSError:
                pass
        deadline = time.monotonic() + 5
        for worker in self.workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
