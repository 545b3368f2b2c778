"""The two processes a grading run needs besides nbgrader: the judge and the fork server.

Both are started before any kernel, in a private folder (mode 0700) that holds their
sockets, the kernel spec that points at the fork server, and one folder per kernel.
``autograder grade`` owns them and hands their addresses to its workers through the
environment (``AUTOGRADER_RUN``); plain ``nbgrader autograde`` gets its own, started by
the first notebook it executes (see ``preprocessors.judged_execute``). The owner checks
that both still answer and replaces a dead or stopped one (``ensure_alive``): a
failure costs only the submission that was being graded.
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import forkserver, judge_client
from .sandbox.syscalls import PARENT_ENV

ENV_RUN = "AUTOGRADER_RUN"
START_TIMEOUT = 120  # seconds for a server to import torch & co. on a busy machine
PING_TIMEOUT = 10


MAX_SOCKET_PATH = 107  # bytes in a Unix socket address, the kernels' ZeroMQ sockets included


def _short_temp() -> str:
    """The temporary folder, unless its path is too long for the sockets beneath it
    (``<run>/kernels/<pid>-<n>/ipc/k-<port>``): then /tmp."""
    base = tempfile.gettempdir()
    longest = len(os.path.join(base, "autograder-run-xxxxxxxx", "kernels", "4194304-99999", "ipc", "k-65535"))
    return base if longest <= MAX_SOCKET_PATH else "/tmp"


def _wait_for(path: Path, process: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while not path.exists():
        if process.poll() is not None:
            raise RuntimeError(f"the {what} exited while starting (see the kernels' log)")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the {what} did not start within {START_TIMEOUT} s")
        time.sleep(0.02)


class Services:
    """The judge and the fork server of one run (``owner``), or a view of them (workers)."""

    def __init__(self, folder: Path, sandbox: bool, owner: bool):
        self.folder = Path(folder)
        self.sandbox = sandbox
        self.owner = owner
        self.judge_socket = str(self.folder / "judge.sock")
        self.fork_socket = str(self.folder / "fork.sock")
        self.kernels = self.folder / "kernels"
        self.share = self.folder / "share"
        self.processes: dict = {}
        self._log = None
        self._count = 0

    # -- the owner's side ---------------------------------------------------------------
    @classmethod
    def start(cls, course_root: Path, sandbox: bool = True, log: Path | None = None) -> "Services":
        folder = Path(tempfile.mkdtemp(prefix="autograder-run-", dir=_short_temp()))
        os.chmod(folder, 0o700)
        services = cls(folder, sandbox, owner=True)
        services.course_root = Path(course_root)
        services.kernels.mkdir()
        forkserver.install_kernelspec(services.share)
        log = Path(log) if log else folder / "servers.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        services._log = open(log, "a")  # the servers' own logging, never a student's output
        try:
            services._launch("fork")
            services._launch("judge")
            services.wait_ready()
        except BaseException:  # a server that cannot start, or Ctrl-C meanwhile: none is left behind
            services.close()
            raise
        return services

    def _command(self, which: str) -> list:
        if which == "fork":
            return [sys.executable, "-m", "autograder.instructor.forkserver", self.fork_socket,
                    *([] if self.sandbox else ["--no-sandbox"])]
        return [sys.executable, "-m", "autograder.instructor.judge_server", self.judge_socket, str(self.course_root)]

    def _launch(self, which: str) -> None:
        path = Path(self.fork_socket if which == "fork" else self.judge_socket)
        path.unlink(missing_ok=True)
        env = {k: v for k, v in os.environ.items() if k != ENV_RUN}
        env[PARENT_ENV] = str(os.getpid())  # the server ends when this process does
        self.processes[which] = subprocess.Popen(self._command(which), stdout=subprocess.DEVNULL,
                                                 stderr=self._log, env=env, cwd=self.folder)

    def wait_ready(self) -> None:
        _wait_for(Path(self.fork_socket), self.processes["fork"], "fork server")
        _wait_for(Path(self.judge_socket), self.processes["judge"], "judge")

    def _answers(self, which: str) -> bool:
        process = self.processes[which]
        if process.poll() is not None:
            return False
        try:
            if which == "judge":
                judge_client.request(self.judge_socket, {"op": "ping"}, timeout=PING_TIMEOUT)
            else:
                forkserver.ping(self.fork_socket, timeout=PING_TIMEOUT)
            return True
        except (OSError, judge_client.JudgeError, ValueError):
            return False

    def ensure_alive(self) -> list:
        """Replace a server that died or stopped answering; returns the ones replaced."""
        replaced = []
        for which in ("fork", "judge"):
            if not self._answers(which):
                self.processes[which].kill()
                self.processes[which].wait()
                self._launch(which)
                replaced.append(which)
        if replaced:
            self.wait_ready()
        return replaced

    def cpu_seconds(self) -> dict:
        """CPU time each server has used so far (its own, not its kernels')."""
        ticks = os.sysconf("SC_CLK_TCK")
        used = {}
        for which, process in self.processes.items():
            try:
                with open(f"/proc/{process.pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                used[which] = (int(fields[11]) + int(fields[12])) / ticks  # utime + stime
            except OSError:
                used[which] = 0.0
        return used

    def environment(self) -> dict:
        """What a worker process needs to find these services."""
        jupyter_path = os.pathsep.join(filter(None, [str(self.share), os.environ.get("JUPYTER_PATH")]))
        return {ENV_RUN: json.dumps({"folder": str(self.folder), "sandbox": self.sandbox}),
                "JUPYTER_PATH": jupyter_path}

    def close(self) -> None:
        if not self.owner:
            return
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)  # the fork server kills its kernels, if any are left
        for process in self.processes.values():
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log:
            self._log.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- everyone's side ----------------------------------------------------------------
    @classmethod
    def attach(cls) -> "Services | None":
        """The services named by the environment (a worker of ``autograder grade``), if any."""
        described = os.environ.get(ENV_RUN)
        if not described:
            return None
        info = json.loads(described)
        return cls(Path(info["folder"]), info["sandbox"], owner=False)

    def kernel_folder(self) -> Path:
        """A new folder for one notebook's kernels: its socket folder and its scratch mount point."""
        self._count += 1
        folder = self.kernels / f"{os.getpid()}-{self._count}"
        folder.mkdir(mode=0o700)
        (folder / "ipc").mkdir()
        (folder / "scratch").mkdir()
        return folder


_own: Services | None = None


def for_this_process(course_root: Path, sandbox: bool) -> Services:
    """The services to use here: the run's (a worker of ``autograder grade``), or ones this
    process starts for itself (plain ``nbgrader autograde``) and stops when it exits."""
    global _own
    attached = Services.attach()
    if attached is not None:
        return attached
    if _own is None or _own.course_root != Path(course_root) or _own.sandbox != sandbox:
        if _own is not None:
            _own.close()
        _own = Services.start(course_root, sandbox)
        os.environ["JUPYTER_PATH"] = os.pathsep.join(
            filter(None, [str(_own.share), os.environ.get("JUPYTER_PATH")]))
        atexit.register(_own.close)
    else:
        _own.ensure_alive()
    return _own


def stop_own() -> None:
    """Stop the services this process started for itself (a Dask worker done with a course)."""
    global _own
    if _own is not None:
        _own.close()
        _own = None
