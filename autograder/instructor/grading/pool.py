"""Worker processes that grade one submission at a time, watched by the coordinator.

``concurrent.futures`` gives up on every pending task when one worker dies; a grading run
must not. Here each worker is its own process with its own socket to the coordinator. The
coordinator hands out one task at a time and watches every worker: one that dies (killed, out
of memory) or is stopped (SIGSTOP) is replaced, and its task is tried once more in a fresh
worker; a task that kills two workers is reported as failed. A task that runs past
``task_timeout`` seconds, or whose worker's memory grows past ``memory_mb``
(``worker_memory``), has its worker killed and replaced too, and is reported at once (it
would only overrun again). No other task is touched.

Tasks and results travel as the system's other messages do (``wire.framing``: one JSON line
each, never pickle): a task names its function (``module:function``) and carries JSON
arguments; a result is JSON, in which a dataclass of this package travels as its fields and
comes back as itself (``encode``, ``decode``).
"""
from __future__ import annotations

import contextlib
import dataclasses
import importlib
import multiprocessing
import socket
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.connection import wait

import psutil

from ...wire import framing
from ..kernels.services import short_temp
from . import worker_memory

MAX_MESSAGE = 64 * 2 ** 20  # a task's or a result's line (the coordinator's own workers: trusted)


@dataclass
class Lost:
    """A task whose worker died or stopped twice, or overran its time or memory (``reason``:
    "died", "was stopped", "overran", "memory")."""
    task: tuple
    reason: str


def encode(value):
    """``value`` as JSON data; a dataclass of this package as {"$dataclass": name, "fields": …}."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value)
        return {"$dataclass": f"{kind.__module__}:{kind.__qualname__}",
                "fields": {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    return value


def decode(data):
    """The value ``encode`` made (tuples come back as lists)."""
    if isinstance(data, dict) and "$dataclass" in data:
        module, _, name = data["$dataclass"].partition(":")
        if not module.startswith("autograder."):
            raise ValueError(f"not a dataclass of this package: {data['$dataclass']}")
        return getattr(importlib.import_module(module), name)(**decode(data["fields"]))
    if isinstance(data, list):
        return [decode(v) for v in data]
    if isinstance(data, dict):
        return {k: decode(v) for k, v in data.items()}
    return data


def name_of(function) -> str:
    return f"{function.__module__}:{function.__qualname__}"


def function_named(name: str):
    module, _, qualname = name.partition(":")
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def _serve(sock: socket.socket, initializer: str, initargs: list) -> None:
    function_named(initializer)(*initargs)
    framing.send(sock, {"ready": True})  # a task's time starts once it is handed to a ready worker
    lines = framing.Lines(sock, MAX_MESSAGE)
    while True:
        task = lines.message()
        if task is None or task.get("stop"):
            return
        result = function_named(task["call"])(*task["args"])
        framing.send(sock, {"result": encode(result)})


class Worker:
    def __init__(self, context, initializer: str, initargs: list):
        self.sock, theirs = socket.socketpair()
        self.process = context.Process(target=_serve, args=(theirs, initializer, initargs), daemon=True)
        self.process.start()
        theirs.close()
        self.lines = framing.Lines(self.sock, MAX_MESSAGE)
        self.task = None
        self.attempt = 0
        self.since = 0.0  # when it was handed its task
        self.started = False  # its initializer has run: it said so, and may be handed a task

    def hello(self) -> None:
        """Read that it is ready (``OSError`` if it died first: its initializer failed)."""
        if self.lines.message() != {"ready": True}:
            raise OSError("the worker ended before it was ready")
        self.started = True

    def fileno(self) -> int:
        return self.sock.fileno()

    def give(self, task, attempt: int) -> None:
        self.task, self.attempt, self.since = task, attempt, time.monotonic()
        function, args = task
        framing.send(self.sock, {"call": name_of(function), "args": encode(list(args))})

    def result(self):
        """The result it sent (``OSError`` if it died first)."""
        reply = self.lines.message()
        if reply is None:
            raise OSError("the worker closed its connection")
        return decode(reply["result"])

    def stopped_or_dead(self) -> str | None:
        if not self.process.is_alive():
            return "died"
        try:
            if psutil.Process(self.process.pid).status() == psutil.STATUS_STOPPED:
                return "was stopped"
        except psutil.NoSuchProcess:
            return "died"
        return None

    def overran(self, seconds: float | None) -> str | None:
        return "overran" if seconds and time.monotonic() - self.since > seconds else None

    def past_memory(self, limit: int | None) -> str | None:
        return "memory" if worker_memory.past(self.process.pid, limit) else None

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.sock.close()


@contextlib.contextmanager
def _socket_sized_temp():
    """multiprocessing's fork server listens on a Unix socket in a new folder of the temporary
    folder (``pymp-*/listener-*``); under a TMPDIR too long for a socket address, starting the
    pool failed ("AF_UNIX path too long"), so there that folder is made in /tmp."""
    saved, tempfile.tempdir = tempfile.tempdir, short_temp(("pymp-xxxxxxxx", "listener-xxxxxxxx"))
    try:
        yield
    finally:
        tempfile.tempdir = saved


class Pool:
    """``jobs`` workers; ``run`` gives each task (``(function, args)``) to the next free worker."""

    def __init__(self, jobs: int, initializer, initargs=(), on_fault=None, task_timeout: float | None = None,
                 preload: tuple = (), memory_mb: int | None = None):
        """``preload``: modules every worker needs, imported once by multiprocessing's fork
        server (a fresh process, started with the first pool) and inherited by each worker it
        forks; a worker replaced during the run is forked from it too."""
        self.task_timeout, self.memory_mb = task_timeout, memory_mb
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(list(preload))
        self.initializer, self.initargs = name_of(initializer), encode(list(initargs))
        self.on_fault = on_fault or (lambda reason: None)
        with _socket_sized_temp():  # the fork server starts with the first worker
            self.workers = [self._new() for _ in range(jobs)]
        self.faults: list = []
        self.failed_starts = 0

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
            for worker in self.workers:
                if worker.started and worker.task is None and pending:
                    worker.give(*pending.pop(0))
                    busy += 1
            ready = wait([w for w in self.workers if w.task is not None or not w.started],
                         timeout=worker_memory.POLL)
            for i, worker in enumerate(self.workers):
                if not worker.started:
                    self._starting(i, worker in ready)
                    continue
                if worker.task is None:
                    continue
                if worker in ready:
                    try:
                        result = worker.result()
                    except (OSError, ValueError):
                        fault = "died"
                    else:
                        worker.task, busy = None, busy - 1
                        yield result
                        continue
                else:
                    fault = (worker.stopped_or_dead() or worker.overran(self.task_timeout)
                             or worker.past_memory(self.memory_mb))
                    if fault is None:
                        continue
                task, attempt = worker.task, worker.attempt
                busy -= 1
                worker.kill()
                self.workers[i] = self._new()
                self.faults.append((task, fault))
                self.on_fault(fault)
                if attempt == 0 and fault not in ("overran", "memory"):
                    pending.insert(0, (task, 1))
                else:
                    yield Lost(task, fault)

    def _starting(self, i: int, spoke: bool) -> None:
        """A worker not ready yet: ready if it said so; replaced if it died first. Workers that
        keep dying before they are ready (an initializer that fails: a broken environment, no
        student's doing) stop the run with the reason, instead of a class of lost submissions."""
        worker = self.workers[i]
        try:
            if spoke:
                worker.hello()
                return
            if worker.process.is_alive():
                return
            raise OSError("the worker ended before it was ready")
        except (OSError, ValueError):
            self.failed_starts += 1
            worker.kill()
            if self.failed_starts > 2 * len(self.workers):
                raise RuntimeError(f"the grading workers end before they are ready ({self.failed_starts} "
                                   f"times; exit code {worker.process.exitcode}): their set-up "
                                   f"{self.initializer} fails") from None
            self.workers[i] = self._new()

    def close(self) -> None:
        for worker in self.workers:
            try:
                framing.send(worker.sock, {"stop": True})
            except OSError:
                pass
        deadline = time.monotonic() + 5
        for worker in self.workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
