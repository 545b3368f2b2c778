"""The judge and the fork server of a Dask run: one pair per machine, as a local run has one pair
for all its workers, and the instructor's notebook checked once per machine.

Each Dask worker process used to start its own judge and fork server (each imports torch:
~3 s of CPU) and grade the instructor's notebook itself: grading 40 lesson-3 submissions on
two single-threaded worker processes took 1.63× the CPU of ``--jobs 2``. Now the worker
processes of one machine (those that share its temporary folder, as one user) share a pair.
Their meeting place is a folder of the temporary folder named for the course and the run
(mode 0700, ``Machine``): a lock file, what was started (``state.json``: the servers'
folder, the process that owns them, the checks done) and each process's course folder,
which the servers' sandbox keeps kernels out of as a whole. The first process that needs the
servers starts them, the others use them (as a local run's workers do, through
``services.ENV_RUN``); a process whose submission failed checks that they still answer
and, if not (their owner died with them, or one was killed), starts a new pair, which the
others take up at their next submission. The instructor's notebook is graded by the first
process of a machine that needs the check and the answer kept for the others: the check is
about the machine's Python and the servers, which they share.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

import psutil

from ..kernels.services import ENV_RUN, Services, kept_out


class Machine:
    """What the worker processes of this machine share for one run (``key``: the course and
    the run)."""

    def __init__(self, key: str):
        self.folder = Path(tempfile.gettempdir()) / f"autograder-machine-{key}"
        self.owned: Services | None = None  # the servers this process started, if it did
        self.used: Services | None = None  # the servers this process uses (its own, or a view)
        self.jupyter_path = os.environ.get("JUPYTER_PATH")  # as it was before any run's kernel spec

    def course_root(self) -> Path:
        """This process's own course folder (nbgrader writes the submission it grades there)."""
        return self.folder / f"course-{os.getpid()}"

    def enter(self) -> Path:
        """Make the run's folder here, if no other process has (``_ours``), and this process's
        course folder in it."""
        self.folder.mkdir(mode=0o700, exist_ok=True)
        self._ours()
        self.course_root().mkdir(mode=0o700, exist_ok=True)
        return self.course_root()

    def _ours(self) -> None:
        """The run's folder is a real folder of this user's that nobody else may open: its name is
        known beforehand (in a temporary folder others may write to), and its state says which
        judge decides the points."""
        info = os.lstat(self.folder)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise RuntimeError(f"{self.folder} is not a private folder of this user: not grading with it")

    @contextlib.contextmanager
    def _state(self, create: bool = True):
        """The machine's state, read and written back under its lock (None once the run's
        folder is gone: another process ended the run here)."""
        if create:
            self.enter()
        try:
            lock = os.open(self.folder / "lock", os.O_RDWR | (os.O_CREAT if create else 0), 0o600)
        except FileNotFoundError:
            yield None
            return
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            path = self.folder / "state.json"
            try:
                state = json.loads(path.read_text())
            except (OSError, ValueError):
                state = {}
            before = json.dumps(state, sort_keys=True)
            try:
                yield state
            finally:  # (servers started before a check that failed are kept too)
                if self.folder.is_dir() and json.dumps(state, sort_keys=True) != before:
                    partial = path.with_suffix(".partial")
                    partial.write_text(json.dumps(state))
                    partial.replace(path)
        finally:
            os.close(lock)

    def ready(self, config, assignment: str, check, verify: bool = False) -> str | None:
        """Point this process at the machine's servers (started here if there are none, or if
        they do not answer when asked: with ``verify``, or once their owner is gone), and return
        why the instructor's notebook of ``assignment`` falls short here (``check()``, run once
        per machine), or None."""
        with self._state() as state:
            servers = self._servers(state, config, verify)
            self.used = servers
            os.environ.update(self._environment(servers))
            checked = state.setdefault("checked", {})
            if assignment not in checked:
                checked[assignment] = check()
            return checked[assignment]

    def serving(self) -> bool:
        """Do the servers this process used for its last submission still answer? If not (their
        owner died and took them along, or one was killed), what that submission's kernels
        did may have been cut short by the grader's fault, not the student's: it is graded
        again (``dask.grade_submission``)."""
        return self.used is not None and self.used.answer()

    def _servers(self, state: dict, config, verify: bool) -> Services:
        described = state.get("servers")
        if described:
            if self.owned is not None and str(self.owned.folder) == described["folder"]:
                if verify:
                    self.owned.ensure_alive()  # replaced in place: the others need not move
                return self.owned
            view = Services(Path(described["folder"]), described["sandbox"], owner=False)
            if (not verify and psutil.pid_exists(described["owner"])) or view.answer():
                self._close_owned()  # a pair of ours that the machine no longer uses
                return view
        self._close_owned()
        sandbox = bool(config.JudgedExecute.get("sandbox", True))
        self.owned = Services.start(self.course_root(), sandbox,
                                    keep_out=kept_out(config) + [str(self.folder)])
        state["servers"] = {"folder": str(self.owned.folder), "sandbox": sandbox, "owner": os.getpid()}
        return self.owned

    def _environment(self, servers: Services) -> dict:
        """What nbgrader's passes in this process need to use ``servers`` (``services.ENV_RUN``,
        the kernel spec on JUPYTER_PATH), from this process's own JUPYTER_PATH."""
        self._restore_jupyter_path()
        return servers.environment()

    def _restore_jupyter_path(self) -> None:
        if self.jupyter_path is None:
            os.environ.pop("JUPYTER_PATH", None)
        else:
            os.environ["JUPYTER_PATH"] = self.jupyter_path

    def _close_owned(self) -> None:
        if self.owned is not None:
            self.owned.close()
            self.owned = None

    def leave(self) -> None:
        """The run is over here (the plugin's teardown): stop the servers this process started,
        remove its course folder and, once the servers' owner is this process or gone, the
        run's folder on this machine (with a dead owner's servers' folder)."""
        with self._state(create=False) as state:
            self._close_owned()
            os.environ.pop(ENV_RUN, None)
            self._restore_jupyter_path()
            shutil.rmtree(self.course_root(), ignore_errors=True)
            if state is None:
                return
            owner = state.get("servers", {}).get("owner")
            if owner is None or owner == os.getpid() or not psutil.pid_exists(owner):
                if owner is not None and owner != os.getpid():
                    shutil.rmtree(state["servers"]["folder"], ignore_errors=True)
                shutil.rmtree(self.folder, ignore_errors=True)
