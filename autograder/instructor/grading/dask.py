"""Grading on a Dask cluster: ``autograder grade ASSIGNMENT --scheduler tcp://HOST:8786``.

One machine grades a class in minutes; a deadline with thousands of submissions wants
more machines, and Jupyter deployments already run Dask's ``distributed`` (``dask
scheduler`` and ``dask worker`` on any machines, dask-gateway on JupyterHub,
dask-kubernetes), so this module uses it rather than cluster software of our own. The run is
``run.grade``, the loop a local run goes through (what to grade, the instructor's notebook
first, lost and crashed submissions, export, report): only the grading itself happens on
the workers. A Dask worker process grades with the very code a local worker runs
(``worker.grade_one``: nbgrader's autograde and feedback with the course's passes), with
the judge and pre-warmed fork server its machine shares (``machine``: one pair per machine,
as a local run has one pair for its workers). Each worker process keeps one course folder,
made from data a worker plugin brings it (the configuration, the course's
``nbgrader_config.py``, the assignment's source folder), and each task replaces only one
student's submitted folder. No folder is shared between machines: a task carries the
student's files as bytes and brings back the autograded and feedback folders, the per-cell
scores and why a submission could not be graded; this (the instructor's) process writes its
own course directory, each student's files once per run, and records what it graded
(``rerun``). The gradebook is shared, so it must be a database server (SQLite is refused);
its rows are nbgrader's own, updated in place, so a task that runs again after its worker
died writes no second row. Dask runs a dead worker's tasks elsewhere; the scheduler's
``remove-worker`` events tell the report which submissions that touched. A worker process
past its memory (``worker_memory``) or its submission's time budget is ended, as a local
worker is (``watched``), and its submission gets the row a local run gives it. Only
``--scheduler`` imports this module (and so ``distributed``).
"""
from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import json
import os
import shutil
import sys
import threading
import time
import uuid
from collections import deque
from pathlib import Path

from distributed import Client, KilledWorker, get_worker, wait
from distributed.client import FutureCancelledError
from distributed.diagnostics.plugin import WorkerPlugin
from distributed.utils import sync

from .. import course_secret, failures, files, time_budget
from ..course_config import course_config
from ..passes import hooks, self_check
from . import progress, rerun, run, worker, worker_memory
from .machine import Machine
from .run import Report

SQLITE_REFUSED = ("grading on a Dask cluster needs the gradebook on a database server, because workers on other "
                  "machines cannot share a SQLite file ({url}): pass --db-url postgresql+psycopg://USER:PASSWORD@HOST/"
                  "DATABASE or set NBGRADER_DB_URL.")
NO_SANDBOX = ("Dask workers that cannot sandbox grading kernels: {which}. Grading without a sandbox lets students' "
              "code read and change what those workers' user can; if you accept that, run again with --no-sandbox.")
POLL = 1.0  # seconds between looks at the cluster while waiting for results
ENDED = "autograder-ended"  # the scheduler's topic: tasks whose worker process was ended (``watched``)


class Refused(Exception):
    """A cluster run that cannot start; the message says why and what to do."""


# -- the data that travels ---------------------------------------------------------------
def course_data(root: Path, assignment: str, config) -> dict:
    """What every worker process needs to grade ``assignment``, as plain data: the
    configuration the instructor's nbgrader would use, the course files (``[path, mode,
    bytes]``: nbgrader_config.py, source/<assignment>/ and the course secret, if there is one)
    and a grading process's limits. ``key`` names this exact content."""
    found = [["source/" + assignment + "/" + name, mode, data]
             for name, mode, data in rerun.source_files(root, assignment)]
    own = Path(root) / "nbgrader_config.py"
    if own.is_file():
        found.append(["nbgrader_config.py", 0o644, own.read_bytes()])
    secret = course_secret.read(root)  # each worker's judge draws the students' variants from it
    if secret:
        found.append([course_secret.FILE, 0o600, secret])
    h = hashlib.sha256(json.dumps(config, sort_keys=True, default=repr).encode())
    h.update(assignment.encode() + b"\0" + rerun.digest(sorted(found)).encode())
    notebooks = max(1, sum(name.startswith(f"source/{assignment}/") and name.count("/") == 2
                           and name.endswith(".ipynb") for name, _, _ in found))
    return {"key": h.hexdigest()[:16], "assignment": assignment, "config": config, "files": sorted(found),
            "memory_mb": worker_memory.limit_mb(config),  # each worker process's limits, as a local worker's
            "seconds": time_budget.submission_budget(config, notebooks)}


def submission_data(root: Path, assignment: str, student: str) -> list:
    """One student's submitted files as data. Links and special files are first moved
    aside exactly as nbgrader's hook would move them on a local run (``hooks``)."""
    folder = Path(root) / "submitted" / student / assignment
    hooks.quarantine_unsafe_files(assignment, student, [str(folder / f"{assignment}.ipynb")])
    return files.read_regular(folder)[0]


# -- on a Dask worker ----------------------------------------------------------------------
_COURSES: dict = {}  # course key → course data (from the plugin)
_HERE: dict = {}  # the course this process has loaded: key, root, machine, config, cwd
_LOCK = threading.Lock()  # one submission at a time per process (nbgrader changes the environment)


class CoursePlugin(WorkerPlugin):
    """Gives every worker process the course, those that join later included; removed at
    the end of the run, when each process leaves its machine's servers (``machine``). For the
    run, Dask's statistical profiler is paused on the worker: it walks the stack of the
    running task every 10 ms, and a grading task's stack (nbgrader, nbclient, asyncio) is
    deep, which cost several percent of each worker's CPU for a profile nobody reads."""

    PROFILER = ("profile", "profile-cycle")

    def __init__(self, course: dict):
        self.course = course
        self.paused: list = []

    def setup(self, worker):
        _COURSES[self.course["key"]] = self.course
        for name in self.PROFILER:
            callback = worker.periodic_callbacks.get(name)
            if callback is not None and callback.is_running():
                callback.stop()
                self.paused.append(callback)

    async def teardown(self, worker):
        for callback in self.paused:
            callback.start()
        self.paused.clear()
        await asyncio.to_thread(_close, self.course["key"])


def _close(key: str) -> None:
    with _LOCK:
        _COURSES.pop(key, None)
        if _HERE.get("key") == key:
            _leave()


def _leave() -> None:
    _HERE["machine"].leave()
    worker.WORKER.clear()
    os.chdir(_HERE["cwd"])
    _HERE.clear()


def _open(key: str) -> Path:
    """This process's course folder for ``key``, with nbgrader loaded for it."""
    if _HERE.get("key") == key:
        return _HERE["root"]
    course = _COURSES.get(key)
    if course is None:
        raise RuntimeError("this Dask worker has not received the course (its plugin is missing)")
    config = course["config"]
    if config.JudgedExecute.get("sandbox", True):
        from ..kernels import sandbox

        reason = sandbox.probe()
        if reason:
            raise RuntimeError(f"this Dask worker cannot sandbox grading kernels: {reason}")
    if _HERE:
        _leave()  # another course's
    cwd = os.getcwd()  # (worker.init moves into the course folder)
    place = Machine(f"{key}-{course['run']}")
    root = place.enter()
    files.write_tree(root, course["files"])
    config = copy.deepcopy(config)
    config.CourseDirectory.root = str(root)
    worker.init(str(root), config, {}, exit_fast=False)
    _HERE.update(key=key, root=root, machine=place, config=config, cwd=cwd)
    return root


def _ready(assignment: str, verify: bool = False) -> str | None:
    """Point this process at its machine's servers (``verify``: after a submission failed, do
    they still answer?); why the instructor's notebook of ``assignment`` falls short here, or
    None (``machine.Machine.ready``: checked once per machine)."""
    why = _HERE["machine"].ready(_HERE["config"], assignment, lambda: _self_check(assignment), verify)
    return f"{why} (on the Dask worker {_address()})" if why else None


def _self_check(assignment: str) -> str | None:
    shortfalls = worker.self_check(assignment)
    return self_check.sentence(assignment, shortfalls) if shortfalls else None


def _clear(root: Path) -> None:
    for name in ("submitted", "autograded", "feedback", "autograder-logs"):
        shutil.rmtree(root / name, ignore_errors=True)


# What nbgrader wrote for one student comes back whole: a print of 100 MB makes a 100 MB
# notebook and feedback page, as it does on a local run (the submission's own budget,
# files.MAX_BYTES, bounds what goes out, not this)
RESULT_BYTES = 2 ** 30


def _read(folder: Path):
    return files.read_regular(folder, max_bytes=RESULT_BYTES)[0] if folder.is_dir() else None


def _scores(assignment: str, student: str) -> dict:
    """{notebook: {test cell: score}} of the submission, as the gradebook has it now."""
    from nbgrader.api import Gradebook, MissingEntry

    coursedir = worker.WORKER["api"].coursedir
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        try:
            submission = gb.find_submission(assignment, student)
        except MissingEntry:
            return {}
        return {nb.name: {g.name: g.score for g in nb.grades} for nb in submission.notebooks}


def _address() -> str:
    try:
        return get_worker().address
    except ValueError:  # called outside a Dask worker
        return ""


@contextlib.contextmanager
def watched(key: str, memory_mb: int, seconds: float):
    """While this worker process grades one submission (the task ``key``): measured every
    ``worker_memory.POLL`` seconds, as a local pool measures its workers; past ``memory_mb``
    of memory or ``seconds`` of time, the process is ended (its nanny starts a new one), as a
    local worker past them is. Before it ends, the scheduler is told why (an event under
    ``ENDED``, sent and answered first); Dask then gives the task to another worker, which
    finds that event (``ended``) and returns the reason without grading it again, so the
    submission gets the row a local run gives it."""
    done = threading.Event()
    watch = threading.Thread(target=_watch, args=(get_worker(), key, memory_mb, time.monotonic() + seconds, done),
                             name="autograder-watch", daemon=True)
    watch.start()
    try:
        yield
    finally:
        done.set()
        watch.join()


def _watch(dask_worker, key: str, memory_mb: int, deadline: float, done: threading.Event) -> None:
    while not done.wait(worker_memory.POLL):
        if worker_memory.past(os.getpid(), memory_mb):
            _end(dask_worker, key, "memory", worker_memory.detail(memory_mb))
        elif time.monotonic() > deadline:
            _end(dask_worker, key, "overran", "")


def _end(dask_worker, key: str, reason: str, detail: str) -> None:
    try:
        sync(dask_worker.loop, dask_worker.scheduler.log_event, topic=ENDED,
             msg={"key": key, "reason": reason, "detail": detail}, callback_timeout=30)
    finally:
        print(f"autograder: ending this worker process (task {key}): {reason}", file=sys.stderr, flush=True)
        os._exit(70)


def ended(key: str) -> dict | None:
    """Why an earlier worker process was ended while it held task ``key`` (``watched``), or None."""
    dask_worker = get_worker()
    events = sync(dask_worker.loop, dask_worker.scheduler.events, topic=ENDED, callback_timeout=30)
    return next((msg for _, msg in events if isinstance(msg, dict) and msg.get("key") == key), None)


def grade_submission(key: str, assignment: str, student: str, submitted: list) -> dict:
    """The task: one submission through ``worker.grade_one``, in this process's course folder."""
    task = get_worker().get_current_task()
    before = ended(task)
    if before:  # its worker process was ended: its reason, not a second try
        return {"student": student, "ended": before["reason"], "detail": before.get("detail", "")}
    with _LOCK:
        root = _open(key)
        why = _ready(assignment)
        if why:
            raise self_check.SelfCheckFailed(why)
        course = _COURSES[key]
        _clear(root)
        try:
            files.write_tree(root / "submitted" / student / assignment, submitted)
            with watched(task, course["memory_mb"], course["seconds"]):
                outcome = worker.grade_one(assignment, student)
            if outcome.ok and not _HERE["machine"].serving():  # its machine's servers died under it
                outcome = worker.Outcome(student, False, outcome.seconds, "crashed")  # (graded again: ``run``)
            if not outcome.ok:  # the servers checked now: a submission graded again must find them answering
                _ready(assignment, verify=True)
            log = failures.log_path(root, assignment, student)
            return {"student": student, "ok": outcome.ok, "seconds": outcome.seconds, "reason": outcome.reason,
                    "autograded": _read(root / "autograded" / student / assignment),
                    "feedback": _read(root / "feedback" / student / assignment),
                    "log": log.read_text() if log.is_file() else None,
                    "scores": _scores(assignment, student), "worker": _address()}
        finally:
            _clear(root)


def check_instructor(key: str, assignment: str) -> str | None:
    """Why this worker process cannot grade the instructor's own notebooks of ``assignment``
    with full marks (``self_check``), or None; checked once per machine and course
    (``machine``): before grading starts, on one worker process of every machine there is,
    and by the first task on a machine that joins later."""
    with _LOCK:
        _open(key)
        return _ready(assignment)


def machine_of(key: str) -> str:
    """The machine whose servers this worker process shares (``machine``): its host and the
    run's folder there."""
    import socket

    return f"{socket.gethostname()}:{Machine(key + '-' + str(_COURSES.get(key, {}).get('run'))).folder}"


def can_sandbox(enabled: bool) -> str | None:
    """Why this worker cannot sandbox kernels (run on every worker before grading)."""
    if not enabled:
        return None
    from ..kernels import sandbox

    return sandbox.probe()


# -- on the instructor's machine ------------------------------------------------------------
def write_result(root: Path, assignment: str, result: dict) -> None:
    """Put a task's result in the course directory: the student's autograded and feedback
    folders as the worker left them (none if it left none), and nbgrader's log of a
    submission that could not be graded."""
    student = result["student"]
    for kind in ("autograded", "feedback"):
        target = Path(root) / kind / student / assignment
        if result[kind] is not None:
            files.write_tree(target, result[kind])
        elif target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
    log = failures.log_path(root, assignment, student)
    if result["log"] is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(result["log"])
    else:  # graded normally: an earlier failure of it no longer stands
        log.unlink(missing_ok=True)


def _dashboard(client) -> str:
    try:
        return client.dashboard_link or ""
    except (KeyError, AttributeError):
        return ""


def _finished(running: dict) -> list:
    """The futures that are done, after waiting up to ``POLL`` seconds for one."""
    try:
        wait(list(running), timeout=POLL, return_when="FIRST_COMPLETED")
    except Exception:  # noqa: BLE001  (a timeout, or cancelled futures: their status says)
        pass
    return [f for f in running if f.status in ("finished", "error", "cancelled")]


class _Events:
    """The scheduler's remove-worker events, as they arrive (Dask calls ``__call__``)."""

    def __init__(self):
        self.seen: deque = deque()

    def __call__(self, event) -> None:
        _, msg = event
        if isinstance(msg, dict) and msg.get("action") == "remove-worker":
            self.seen.append(msg)


def grade(root: Path, assignment: str, scheduler, students: list | None = None, db_url: str | None = None,
          timeout: int | None = None, sandbox: bool = True, force: bool = False, show_progress=progress.show,
          export_to: str | None = "grades.csv", say=None, write_report: bool = True) -> Report:
    """``run.grade`` on the Dask cluster whose scheduler is at ``scheduler`` (an address, or a
    ``distributed.Client`` already connected): same plan, same loop, same report."""
    root = Path(root).resolve()
    config = course_config(root, db_url, timeout, sandbox)
    url = config.CourseDirectory.db_url
    if url.startswith("sqlite"):
        raise Refused(SQLITE_REFUSED.format(url=url.split("?")[0]))
    if isinstance(scheduler, Client):
        client, own = scheduler, False
    else:
        try:
            client, own = Client(scheduler, timeout="30s"), True
        except (OSError, TimeoutError) as exc:
            raise Refused(f"no Dask scheduler answers at {scheduler} ({exc}).") from None
    try:
        backend = Dask(client, root, assignment, config, say)
        return run.grade(root, assignment, backend, config, students, force, show_progress, export_to, write_report)
    finally:
        if own:
            client.close()


class Dask:
    """The backend that grades on a Dask cluster's workers (see the module's docstring)."""

    def __init__(self, client, root, assignment, config, say=None):
        self.client, self.root, self.assignment, self.config = client, Path(root), assignment, config
        self.say = say or (lambda text: print(text, file=sys.stderr, flush=True))
        self.run = uuid.uuid4().hex[:8]
        self.course = dict(course_data(root, assignment, config), run=self.run)
        self.plugin = f"autograder-{config.CourseDirectory.get('course_id') or 'course'}-{assignment}"
        self.students: dict = {}  # task key → student
        self.running: dict = {}  # future → student
        self.workers: dict = {}  # address → threads
        self.events = _Events()
        self.registered = False

    def look(self) -> None:
        self.workers = dict(self.client.nthreads())

    def start(self, report: Report) -> None:
        client = self.client
        self.look()
        dashboard = _dashboard(client)
        self.say(f"Dask scheduler {client.scheduler.address}: {len(self.workers)} workers connected"
                 + (f"; dashboard: {dashboard}" if dashboard else " (no dashboard: install bokeh where the scheduler runs)"))
        crowded = sorted(a for a, threads in self.workers.items() if threads > 1)
        if crowded:
            self.say(f"  {len(crowded)} workers have several threads but grade one submission at a time: "
                     "start them with --nthreads 1 (one process per core)")
        sandbox = bool(self.config.JudgedExecute.get("sandbox", True))
        cannot = {a: r for a, r in client.run(can_sandbox, sandbox).items() if r}
        if cannot:
            raise Refused(NO_SANDBOX.format(which="; ".join(f"{a}: {r}" for a, r in sorted(cannot.items()))))
        client.subscribe_topic("all", self.events)
        client.register_plugin(CoursePlugin(self.course), name=self.plugin)
        self.registered = True

    def check_instructor(self) -> str:
        """The instructor's own notebooks, graded on every machine first (each machine's Python
        may differ), by one worker process of each (``machine``: the others of a machine share
        its servers and its answer): one that falls short anywhere stops the run before anyone
        is graded. A worker that leaves meanwhile is not waited for (another process of its
        machine, or of a machine that joins later, checks at its first task)."""
        machines = self.client.run(machine_of, self.course["key"])
        first = {}
        for address, machine in sorted(machines.items()):
            first.setdefault(machine, address)
        checks = {self.client.submit(check_instructor, self.course["key"], self.assignment, workers=[address],
                                     allow_other_workers=False, pure=False): address for address in first.values()}
        while checks:
            for future in _finished(checks):
                address = checks.pop(future)
                if future.status == "finished":
                    why = future.result()
                elif future.status == "error" and not isinstance(future.exception(), KilledWorker):
                    why = f"{type(future.exception()).__name__}: {future.exception()} (on the Dask worker {address})"
                else:  # the worker died while checking: its machine checks again at its first task
                    why = None
                if why:
                    for other in checks:
                        other.cancel()
                    return why
            self.look()
            for future in [f for f, address in checks.items() if address not in self.workers]:
                future.cancel()
                checks.pop(future)
        return ""

    def grade(self, students: list, report: Report):
        client, pending, running = self.client, deque(students), self.running
        written: set = set()
        while pending or running:
            # a window of tasks on the scheduler, not the whole class: Dask keeps each task's
            # data until it runs, and a worker that joins gets work at once all the same
            window = max(4, 2 * sum(self.workers.values()))
            while pending and len(running) < window:
                student = pending.popleft()
                try:
                    submitted = submission_data(self.root, self.assignment, student)
                except Exception as error:  # noqa: BLE001  (this submission's failure, not the run's)
                    written.add(student)
                    yield worker.Outcome(student, False, 0.0, "unreadable", detail=f"{type(error).__name__}: {error}")
                    continue
                key = f"autograder-{self.run}-{len(self.students)}"
                self.students[key] = student
                running[client.submit(grade_submission, self.course["key"], self.assignment, student, submitted,
                                      key=key, pure=False, retries=1)] = student
            for future in _finished(running):
                student = running.pop(future)
                if student not in written:  # one task per student, and one result per task: never twice
                    written.add(student)
                    yield self._outcome(future, student)
                future.release()
            self._faults(self.events, report)
            self.look()
        self._faults(self.events, report)

    def call(self, function, *args):
        """Here: nbgrader is installed on the instructor's machine, and the course folder is here."""
        return function(*args)

    def progress_note(self) -> str:
        return f", {len(self.workers)} workers connected"

    def close(self, report: Report) -> None:
        if self.running:  # interrupted: what has not started is dropped; what has finishes
            self.client.cancel(list(self.running))
        if self.registered:
            self.client.unsubscribe_topic("all")
            try:
                self.client.unregister_worker_plugin(self.plugin)
            except Exception:  # noqa: BLE001  (a scheduler gone by now: nothing left to stop)
                pass

    def _outcome(self, future, student: str):
        try:
            result = future.result()
        except KilledWorker:  # its workers died, again and again: 0, and why (``run.settled``)
            return worker.Outcome(student, False, 0.0, "lost")
        except FutureCancelledError as exc:
            return worker.Outcome(student, False, 0.0, f"the Dask scheduler dropped the task ({exc})")
        except self_check.SelfCheckFailed as exc:  # a worker that cannot grade the instructor's notebook
            raise Refused(str(exc)) from None
        except Exception as exc:  # noqa: BLE001  (an error of the worker, not a grade: tried again next run)
            return worker.Outcome(student, False, 0.0, f"a Dask worker failed: {type(exc).__name__}: {exc}")
        if "ended" in result:  # its worker process was ended (``watched``): 0, and why (``run.settled``)
            return worker.Outcome(student, False, 0.0, result["ended"], detail=result["detail"])
        write_result(self.root, self.assignment, result)
        return worker.Outcome(student, result["ok"], result["seconds"], result["reason"], result["scores"])

    def _faults(self, events: _Events, report: Report) -> None:
        while events.seen:
            msg = events.seen.popleft()
            address = msg.get("worker", "?")
            for key in sorted(msg.get("processing-tasks", ())):
                if key in self.students:
                    how = "was retired" if msg.get("expected") else "left the cluster"
                    report.faults.append((self.students[key], f"(Dask worker {address}) {how} while holding it"))
            waiting = {future.key for future in self.running}
            for key in sorted(msg.get("lost-computed-tasks", ())):
                if key in waiting:  # done there, but its result had not arrived here: run again
                    report.faults.append(
                        (self.students[key], f"(Dask worker {address}) left the cluster before its result arrived"))
