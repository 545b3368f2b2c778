"""The two processes a grading run needs besides nbgrader: the judge and the fork server.

Both are started before any kernel, in a private folder (mode 0700) that holds their
sockets, the kernel spec that points at the fork server, and one folder per kernel.
The fork server starts with an empty environment and an isolated interpreter
(``python -I``): its settings (the Python path, the course folder, the places kernels must
not read) come as one JSON line on its standard input. Once it has imported torch & co., it
forks the judge (``forkserver._fork_judge``), whose settings come on a pipe of their own
that the fork server never reads; a judge that replaces one that died starts as the fork
server does, in an interpreter of its own. Nothing of the instructor's environment (a
database password, a cloud key) is in their memory or their environment block, which
is what a kernel forked from the fork server would show in ``/proc/self/environ``.
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

import psutil

from .. import course_secret
from ..judging import client
from . import forkserver

ENV_RUN = "AUTOGRADER_RUN"
# How a server starts: an isolated interpreter reads its settings, takes the instructor's
# Python path from them (a virtual environment, PYTHONPATH and .pth lines included), then
# runs the server's ``main(socket, settings)``.
BOOT = ("import json, sys, importlib; settings = json.loads(sys.stdin.readline()); sys.stdin.close(); "
        "sys.path[:] = settings['sys_path']; importlib.import_module(settings['module']).main(settings['socket'], settings)")
MODULES = {"fork": "autograder.instructor.kernels.forkserver", "judge": "autograder.instructor.judging.server"}
EXCHANGE = "/usr/local/share/nbgrader/exchange"  # nbgrader's default Exchange.root
NBGRADER_FOLDERS = ("source", "release", "submitted", "autograded", "feedback", "autograder-logs")
START_TIMEOUT = 120  # seconds for a server to import torch & co. on a busy machine
PING_TIMEOUT = 10


MAX_SOCKET_PATH = 107  # bytes in a Unix socket address, the kernels' ZeroMQ sockets included


KERNEL_SOCKET = ("autograder-run-xxxxxxxx", "kernels", "4194304-99999", "ipc", "k-65535")  # the longest


def short_temp(beneath: tuple = KERNEL_SOCKET) -> str:
    """The temporary folder, unless its path is too long for the socket ``beneath`` it (by
    default a kernel's, ``<run>/kernels/<pid>-<n>/ipc/k-<port>``): then /tmp."""
    base = tempfile.gettempdir()
    return base if len(os.path.join(base, *beneath)) <= MAX_SOCKET_PATH else "/tmp"


def _wait_for(path: Path, process: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while not path.exists():
        if process.poll() is not None:
            raise RuntimeError(f"the {what} exited while starting (see the kernels' log)")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the {what} did not start within {START_TIMEOUT} s")
        time.sleep(0.02)


def kept_out(config) -> list:
    """Places of an nbgrader course's configuration that no kernel may read, beside the course
    folder itself: the exchange (every student's submissions and feedback) and a gradebook
    file kept outside the course folder."""
    places = [config.Exchange.get("root") or EXCHANGE] if "Exchange" in config else [EXCHANGE]
    db_url = config.CourseDirectory.get("db_url", "") if "CourseDirectory" in config else ""
    if db_url.startswith("sqlite:///"):
        places.append(db_url.removeprefix("sqlite:///").split("?")[0])
    return places


def environment() -> dict:
    """The whole environment of a server: nothing of the instructor's (and no warning from
    debugpy, which kernels import, at the top of the servers' log)."""
    return {"PATH": os.path.dirname(sys.executable) + ":/usr/bin:/bin", "LANG": "C.UTF-8",
            "PYDEVD_DISABLE_FILE_VALIDATION": "1"}


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
        self.attached = not owner  # a worker's view of a run's servers
        self._log = None
        self._count = 0

    # -- the owner's side ---------------------------------------------------------------
    @classmethod
    def start(cls, course_root: Path, sandbox: bool = True, log: Path | None = None,
              keep_out: list | None = None, wait: bool = True) -> "Services":
        """Start both servers for the course in ``course_root``; ``keep_out``: places kernels
        must not read beside the course folder (``kept_out``; nbgrader's default exchange
        when not given). With ``wait=False`` it returns once both are launched: the caller
        starts its own work meanwhile (the fork server imports torch, ~3 s of CPU) and calls
        ``wait_ready`` (and ``close`` if that fails)."""
        folder = Path(tempfile.mkdtemp(prefix="autograder-run-", dir=short_temp()))
        os.chmod(folder, 0o700)
        services = cls(folder, sandbox, owner=True)
        services.course_root = Path(course_root)
        services.keep_out = list(keep_out if keep_out is not None else [EXCHANGE])
        services.kernels.mkdir()
        forkserver.install_kernelspec(services.share)
        log = Path(log) if log else folder / "servers.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        services._log = open(log, "a")  # the servers' own logging, never a student's output
        try:
            services._launch("fork")  # and, forked from it once it is warm, the judge
            if wait:
                services.wait_ready()
        except BaseException:  # a server that cannot start, or Ctrl-C meanwhile: none is left behind
            services.close()
            raise
        return services

    def settings(self, which: str) -> dict:
        """What a server is told on its standard input."""
        root = self.course_root.resolve()
        settings = {"module": MODULES[which], "socket": self.fork_socket if which == "fork" else self.judge_socket,
                    "sys_path": [p for p in sys.path if p], "parent": os.getpid(),  # it ends when this process does
                    "course_root": str(root)}
        if which == "judge":
            secret = course_secret.read(root)
            settings.update(course_secret=secret.hex() if secret else None)
        if which == "fork":
            settings.update(sandbox=self.sandbox, mplconfigdir=_matplotlib_cache(),
                            forbidden=[str(root / f) for f in NBGRADER_FOLDERS + (course_secret.FILE,)]
                            + self.keep_out + [str(self.folder)],
                            protected=[str(root), os.path.expanduser("~")])
        return settings

    def _command(self, which: str) -> list:
        """The server's command line: the isolated interpreter, and its name (what ``ps`` shows)."""
        return [sys.executable, "-I", "-c", BOOT, f"autograder-{which}"]

    def _launch(self, which: str) -> None:
        """Start a server in an interpreter of its own; the fork server with a pipe holding
        the judge's settings, from which the judge it forks reads them (``forkserver._fork_judge``)."""
        Path(self.fork_socket if which == "fork" else self.judge_socket).unlink(missing_ok=True)
        settings, to_judge = self.settings(which), None
        if which == "fork":
            Path(self.judge_socket).unlink(missing_ok=True)
            self.processes.pop("judge", None)  # (``wait_ready`` learns the forked judge's)
            settings["judge_fd"], to_judge = os.pipe()
        try:
            process = subprocess.Popen(self._command(which), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                       stderr=self._log, env=environment(), cwd=self.folder,
                                       pass_fds=(settings["judge_fd"],) if to_judge is not None else ())
        except BaseException:
            if to_judge is not None:
                os.close(to_judge)
            raise
        finally:
            if to_judge is not None:
                os.close(settings["judge_fd"])  # (the fork server's end)
        self.processes[which] = process
        _tell(process.stdin, settings)
        if to_judge is not None:
            _tell(os.fdopen(to_judge, "wb"), self.settings("judge"))

    def wait_ready(self) -> None:
        _wait_for(Path(self.fork_socket), self.processes["fork"], "fork server")
        if "judge" not in self.processes:  # the judge the fork server forked
            pid = forkserver.forked_judge(self.fork_socket, timeout=START_TIMEOUT)
            if pid is None:
                raise RuntimeError("the fork server started no judge (see the kernels' log)")
            self.processes["judge"] = forkserver.ForkedProcess(pid)
        _wait_for(Path(self.judge_socket), self.processes["judge"], "judge")

    def _answers(self, which: str) -> bool:
        process = self.processes.get(which)  # (a view of another process's servers has none)
        if process is not None and process.poll() is not None:
            return False
        try:
            if which == "judge":
                client.request(self.judge_socket, {"op": "ping"}, timeout=PING_TIMEOUT)
            else:
                forkserver.ping(self.fork_socket, timeout=PING_TIMEOUT)
            return True
        except (OSError, client.JudgeError, ValueError):
            return False

    def answer(self) -> bool:
        """Do both servers answer (the owner's, or a view's of them: a Dask worker process
        using the servers another one on its machine started, ``grading.machine``)?"""
        return all(self._answers(which) for which in ("fork", "judge"))

    def ensure_alive(self) -> list:
        """Replace a server that died or stopped answering; returns the ones replaced. A new
        fork server brings a new judge (a judge forked from the old one ends with it)."""
        if not self._answers("fork"):
            replaced = ["fork", "judge"]
        elif not self._answers("judge"):
            replaced = ["judge"]
        else:
            return []
        for which in reversed(replaced):
            if which in self.processes:  # (none for a judge a failed replacement never started)
                self.processes[which].kill()
                self.processes[which].wait()
        self._launch(replaced[0])
        self.wait_ready()
        return replaced

    def cpu_seconds(self) -> dict:
        """CPU time each server has used so far (its own, not its kernels')."""
        used = {}
        for which, process in self.processes.items():
            try:
                times = psutil.Process(process.pid).cpu_times()
                used[which] = times.user + times.system
            except psutil.Error:
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
            except (subprocess.TimeoutExpired, TimeoutError):  # (a forked judge's handle: TimeoutError)
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


def _tell(pipe, settings: dict) -> None:
    """Write a server's settings, one JSON line, and close the pipe."""
    try:
        with pipe:
            pipe.write((json.dumps(settings) + "\n").encode())
    except OSError:  # it died at once: wait_ready says so
        pass


def _matplotlib_cache() -> str:
    """Where matplotlib keeps its font cache for this user (the fork server imports
    matplotlib, and building the cache again would cost every run a second or two)."""
    configured = os.environ.get("MPLCONFIGDIR")
    if configured:
        return configured
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "matplotlib")


_own: Services | None = None


def for_this_process(course_root: Path, sandbox: bool, keep_out: list | None = None) -> Services:
    """The services to use here: the run's (a worker of ``autograder grade``), or ones this
    process starts for itself (plain ``nbgrader autograde``) and stops when it exits."""
    global _own
    attached = Services.attach()
    if attached is not None:
        return attached
    if _own is None or _own.course_root != Path(course_root) or _own.sandbox != sandbox:
        if _own is not None:
            _own.close()
        _own = Services.start(course_root, sandbox, keep_out=keep_out)
        os.environ["JUPYTER_PATH"] = os.pathsep.join(
            filter(None, [str(_own.share), os.environ.get("JUPYTER_PATH")]))
        atexit.register(_own.close)
    else:
        _own.ensure_alive()
    return _own
