"""Fresh, pre-warmed, sandboxed kernels in milliseconds: a fork server for grading.

Starting a kernel and importing torch costs ~3 s of CPU per submission. The fork
server pays it once: it imports ipykernel, torch (with torch.optim), matplotlib and
the lesson packages, runs no user code, works out what kernels may read
(``sandbox.paths``) and makes a control group for the run (``sandbox.cgroups``).

It never reads a request itself: for each connection it forks a *handler* that reads
the request. A kernel's memory is a copy of its handler's, and so holds its own request
and no other: no earlier student's folder name, nothing of anyone else. The handler
joins the kernel's control group, enters new namespaces and forks the kernel, which is
process 1 of its own PID namespace; the handler answers with the kernel's process id
once the kernel has bound its sockets, and exits, and the server, a subreaper, collects
the kernel when it ends. The kernel sets up its sandbox
(``autograder.instructor.kernels.sandbox``), becomes an IPython kernel on the connection
it was given, seals the sandbox, and only then receives the student's code.

Once warm, and before it works out anything about kernels, the server forks the run's
judge (``_fork_judge``): the judge starts from the same imports, torch's included, instead of
importing them again in an interpreter of its own (2.4 s of CPU a run). The judge's settings,
the course's secret among them, come on a pipe of their own that only the judge reads; the
server closes its end unread before it serves any request, so no kernel's memory, a copy of the
server's, ever holds them, nor anything the judge makes later.

The server is started with an empty environment (``services``): what it needs (its
Python path, whether kernels are sandboxed, the places kernels must not read, the
matplotlib cache) comes as one JSON line on its standard input, so nothing of the
instructor's environment is in its memory or in the environment block ``/proc/self/environ``
shows a kernel. Requests come over a Unix socket in the run's private folder, with the
kernel's socket to the judge attached (SCM_RIGHTS).

``ForkProvisioner`` is the jupyter_client kernel provisioner that asks the server for a
kernel instead of starting ``python -m ipykernel``; ``install_kernelspec`` writes a
kernel spec that uses it. The executor that starts the kernel tells it what to ask
for (``KernelManager.autograder_launch``).
"""
from __future__ import annotations

import gc
import json
import os
import signal
import socket
import sys
import time
from pathlib import Path

import psutil
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner
from traitlets import Type

from ...wire import framing
from ..server_process import die_with_parent, listen
from . import protocol, relay, sandbox
from .sandbox.syscalls import PR_SET_CHILD_SUBREAPER, prctl

KERNEL_NAME = "autograder-fork"
SEND_TIMEOUT = 5  # seconds a message to a kernel may wait to be sent
# The largest message the grader takes from a kernel; a larger one ends that connection, and the
# cell waits for its timeout. An honest message is at most a few hundred kB (a plot); ZeroMQ would
# otherwise take a 2 GB message into the grading process's memory before anything could look at it.
MAX_MESSAGE = 4 * 2 ** 20
MAX_QUEUED = 64  # messages a channel holds before the kernel's end drops or waits
# How often the client tries again to connect to its relay when a connection ended (the fork
# server answers once the kernel has bound its sockets, so the first attempt normally holds; when
# the client connected straight to a kernel still starting, ZeroMQ's default of 100 ms made every
# kernel's first reply wait for the second attempt: 150 ms from asking for a kernel to its
# kernel_info reply, 30 ms at this setting).
RECONNECT_MS = 5
JUDGE_FD = 3  # where the kernel finds its socket to the judge
# No IPython history in grading processes: it would write every student's code (and the
# hidden tests) into a history database, and its saving thread costs CPU in every kernel.
NO_HISTORY = "--HistoryManager.enabled=False"
# What a grading kernel prints comes from Python (print, sys.stdout and sys.stderr, warnings,
# tracebacks): ipykernel's capture of what is written straight to file descriptors 1 and 2 (a
# pipe, a thread reading it, and a round trip through that thread at every flush) cost 1.7 ms
# of CPU per cell, 70 ms of the ~300 ms a lesson-3 kernel spends. Here descriptors 1 and 2 are
# /dev/null: writes that bypass Python are dropped, never kept or sent to the grader.
NO_FD_CAPTURE = "--IPKernelApp.capture_fd_output=False"
# ipykernel sleeps 0.5 ms after every execution so that a client reading only the shell reply
# has the IOPub messages by then; nbclient waits for IOPub's idle status anyway (20 ms of
# waiting per lesson notebook).
NO_EXECUTE_SLEEP = "--IPythonKernel._execute_sleep=0"
KERNEL_OPTIONS = (NO_HISTORY, NO_FD_CAPTURE, NO_EXECUTE_SLEEP)

# What an IPython kernel imports only when it starts (its debugger, with debugpy, is 40 ms of
# CPU on its own): imported once in the server instead of in every kernel.
KERNEL_START_MODULES = ("ipykernel.ipkernel", "ipykernel.debugger", "IPython.core.debugger",
                        "IPython.core.completerlib", "IPython.core.oinspect",
                        "IPython.extensions.storemagic", "psutil", "tornado.platform.asyncio",
                        "tornado.queues")


# -- the server ----------------------------------------------------------------------------
def _warm_up() -> None:
    """Import what every kernel and every lesson notebook imports, so children start with it loaded."""
    import importlib

    import ipykernel.kernelapp  # noqa: F401
    for name in KERNEL_START_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:  # another ipykernel version: its kernels import what they need
            pass
    import matplotlib
    matplotlib.use("module://matplotlib_inline.backend_inline")
    import matplotlib.pyplot  # noqa: F401
    import torch  # noqa: F401
    import torch.fx.experimental.symbolic_shapes  # noqa: F401  (sympy: Module.to_empty imports it, 0.22 s)
    import torch.optim  # noqa: F401

    from lessons import compiler_on_demand
    compiler_on_demand.install()  # (an optimizer would import torch's compiler in each kernel: 0.86 s)

    import autograder.kernel.checks as checks
    import autograder.kernel.commit  # noqa: F401
    import lessons.exercises  # noqa: F401
    import lessons.quiz  # noqa: F401
    import lessons.widgets  # noqa: F401
    from autograder.exercises import EXERCISES
    for spec in EXERCISES:  # every observer (the judges are the judge's: a grading kernel never needs one)
        if spec.observer:
            checks.observer(spec)


JUDGE_NAME = b"autograder-judg"  # what ``ps`` and ``top`` call the forked judge (15 bytes at most)


def _fork_judge(settings_fd: int) -> int:
    """Fork the run's judge from this warm process; returns its process id. The child reads
    its settings (``services.Services.settings("judge")``) from ``settings_fd`` and serves
    until this server ends (``die_with_parent``); the server closes the pipe unread."""
    server = os.getpid()
    pid = os.fork()
    if pid == 0:
        try:
            import importlib
            import random

            from .sandbox.syscalls import PR_SET_NAME

            prctl(PR_SET_NAME, JUDGE_NAME)
            random.seed()  # (not the state every kernel forked from the server starts with)
            with os.fdopen(settings_fd, "rb") as pipe:
                settings = json.loads(pipe.readline())
            settings["parent"] = server  # it ends with the server, which ends with the run
            importlib.import_module(settings["module"]).main(settings["socket"], settings)
        except BaseException:  # noqa: BLE001  (said in the servers' log; the owner sees the judge end)
            import traceback

            traceback.print_exc()
        finally:
            os._exit(1)
    os.close(settings_fd)
    return pid


def _reap(signum, frame) -> None:
    """Collect ended children: handlers, and kernels whose handler has exited."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _stop(signum, frame) -> None:
    """SIGTERM (sent by the owner, or by Linux when the process that started this server
    ended): the kernels go with the server. Each is process 1 of its namespace, so killing
    it ends everything it started. Every kernel is this server's child (it collects them)."""
    import psutil

    for child in psutil.Process().children():
        try:
            child.kill()
        except psutil.Error:
            pass
    if LIMITS is not None:
        deadline = time.monotonic() + 2
        while psutil.Process().children() and time.monotonic() < deadline:
            _reap(0, None)
            time.sleep(0.01)
        LIMITS.close()
    os._exit(0)


def _keep_only(fds: list) -> None:
    """Close every inherited descriptor but stdin/stdout/stderr and ``fds``."""
    keep = {0, 1, 2, *fds}
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _become_kernel(request: dict, judge_fd: int | None, spec: sandbox.Spec, ready: int) -> None:
    """In the kernel process (process 1 of its namespaces): sandbox, then run an IPython
    kernel. Never returns. Why a kernel could not start goes to the servers' log; once it
    runs, its output goes nowhere but to its client. A byte on ``ready`` says its sockets
    are bound (and the sandbox sealed)."""
    import fcntl

    ready = fcntl.fcntl(ready, fcntl.F_DUPFD_CLOEXEC, 10)  # (clear of the descriptors set below)
    log = os.dup(2)
    try:
        devnull = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        extra_env = dict(request.get("env", {}))
        if judge_fd is not None:
            os.dup2(judge_fd, JUDGE_FD)
            os.set_inheritable(JUDGE_FD, False)
            extra_env["AUTOGRADER_JUDGE_FD"] = str(JUDGE_FD)
        _keep_only([JUDGE_FD, log, ready] if judge_fd is not None else [log, ready])
        sandbox.confine(spec)
        connection_file = os.path.join(spec.scratch, ".jupyter", "kernel.json")
        Path(connection_file).write_text(request["connection"])
        os.environ.clear()
        os.environ.update(sandbox.environment(spec, extra_env))
        # one thread per kernel: kernels run side by side, and torch's thread pools fighting
        # over two cores cost more than a tiny model gains from them
        import torch
        torch.set_num_threads(1)
        from ipykernel.kernelapp import IPKernelApp
        app = IPKernelApp.instance()
        app.initialize(["-f", connection_file, *request.get("extra", []), *KERNEL_OPTIONS])
        sandbox.seal(spec)
        os.write(ready, b"1")
        os.close(ready)
    except BaseException:  # noqa: BLE001  (said in the servers' log, then the kernel ends)
        import traceback

        os.write(log, f"a kernel could not start:\n{traceback.format_exc()}".encode())
        os._exit(1)
    os.close(log)
    try:
        app.start()
    finally:
        os._exit(0)


def _read_request(conn: socket.socket) -> tuple:
    """(request, the attached descriptor or None), as the handler receives them."""
    conn.settimeout(10)
    request, fds = framing.receive(conn, MAX_REQUEST, max_fds=1)
    if not isinstance(request, dict):
        raise ValueError("a request is a JSON object")
    return request, (fds[0] if fds else None)


def _wait_until_bound(ready: int) -> None:
    """Until the kernel has bound its sockets (a byte on ``ready``), or has ended, or
    ``START_WAIT`` seconds: the client then connects at its first try, where it tried again
    every few milliseconds for the ~100 ms a kernel takes (through its relay, 10-15 ms of the
    grading process's CPU a kernel)."""
    import select

    if select.select([ready], [], [], START_WAIT)[0]:
        os.read(ready, 1)
    os.close(ready)


def _handle(conn: socket.socket) -> None:
    """In a handler, forked for one connection: read the request, answer a ping, or start
    the kernel (in its control group and namespaces) and answer with its process id."""
    reply: dict
    try:
        request, judge_fd = _read_request(conn)
        if request.get("ping"):
            reply = {"pong": os.getppid(), "judge": JUDGE_PID}
        else:
            spec = sandbox.Spec(**{k: v for k, v in request["spec"].items() if k != "readable"},
                                readable=READABLE, enabled=ENABLED)
            if LIMITS is not None:
                LIMITS.join_new(f"kernel-{os.getpid()}", spec.memory_mb * 2 ** 20, sandbox.MAX_TASKS)
            os.setsid()
            sandbox.enter_namespaces(spec)
            ready, bound = os.pipe()
            kernel = os.fork()
            if kernel == 0:
                os.close(ready)
                _become_kernel(request, judge_fd, spec, bound)
            os.close(bound)
            _wait_until_bound(ready)
            reply = {"pid": kernel}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        reply = {"error": f"{type(exc).__name__}: {exc}"}
    try:
        framing.send(conn, reply)
    except OSError:
        pass


def _serve_one(server: socket.socket, conn: socket.socket) -> None:
    """Fork the handler of one connection; the server itself never reads it."""
    pid = os.fork()
    if pid == 0:
        try:
            server.close()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the server's own handling, not a kernel's
            _handle(conn)
        finally:
            os._exit(0)
    conn.close()


MAX_REQUEST = 2 ** 20
START_WAIT = 60  # seconds a handler waits for its kernel's sockets before answering anyway
READABLE: list = []  # what kernels may read (``sandbox.paths.readable``), worked out once
ENABLED = True  # whether kernels are sandboxed
JUDGE_PID = None  # the judge this server forked (``_fork_judge``), if it was asked to
LIMITS = None  # the run's control groups (``sandbox.cgroups.Limits``), where the machine has them


def serve(path: str, settings: dict) -> None:
    """Warm up, then serve kernel requests at ``path``. ``settings`` (from ``Services``):
    ``sys_path``, ``sandbox``, ``forbidden`` and ``protected`` (see ``sandbox.paths``),
    ``mplconfigdir``."""
    global READABLE, ENABLED, LIMITS, JUDGE_PID
    # the interpreter was started isolated (python -I): the instructor's Python path comes
    # from the settings, less the course folder the server was started from
    sys.path[:] = [p for p in settings["sys_path"] if p not in ("", os.getcwd())]
    if settings.get("mplconfigdir"):
        os.environ["MPLCONFIGDIR"] = settings["mplconfigdir"]
    ENABLED = bool(settings.get("sandbox", True))
    # Importing torch & co. creates half a million objects that live as long as the process;
    # the collector kept scanning them during the imports (a third of the warm-up time) and
    # found ~10 000 unreachable ones (a megabyte or two). So: no collection while warming up,
    # then freeze everything, keeping every child's collector away from the warm objects:
    # scanning them would write to (and so copy) most of the memory children share with us.
    gc.disable()
    _warm_up()
    if settings.get("judge_fd") is not None:
        JUDGE_PID = _fork_judge(settings["judge_fd"])
    if ENABLED:
        from .sandbox import cgroups, paths

        READABLE = paths.readable(settings.get("forbidden", []), settings.get("protected", []))
        cgroups.sweep_stale(CGROUP_PREFIX)
        LIMITS, why = cgroups.Limits.create(f"{CGROUP_PREFIX}{os.getpid()}")
        print(f"kernel limits: {'control groups v%d' % LIMITS.version if LIMITS else 'no control group: ' + why}",
              file=sys.stderr, flush=True)
    gc.freeze()
    gc.enable()
    prctl(PR_SET_CHILD_SUBREAPER, 1)  # kernels are grandchildren: collect them when they end
    signal.signal(signal.SIGCHLD, _reap)
    signal.signal(signal.SIGTERM, _stop)
    server = listen(path, 16)
    while True:
        try:
            conn, _ = server.accept()
        except InterruptedError:
            continue
        _serve_one(server, conn)
        if LIMITS is not None:
            LIMITS.sweep()


CGROUP_PREFIX = "autograder-"


def request_kernel(path: str, request: dict, judge_fd: int | None = None, wait: float = 120,
                   timeout: float = 30) -> int:
    """Ask the server for a kernel; wait for the server to be ready if it is still warming up."""
    deadline = time.monotonic() + wait
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    if len(framing.dumps(request)) >= MAX_REQUEST:
        raise ValueError("kernel request too large")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        framing.send(s, request, fds=(judge_fd,) if judge_fd is not None else ())
        reply, _ = framing.receive(s)
    if not isinstance(reply, dict) or "pid" not in reply:
        error = reply.get("error", "no answer") if isinstance(reply, dict) else "no answer"
        raise OSError(f"the fork server could not start a kernel: {error}")
    return reply["pid"]


def ping(path: str, timeout: float = 10) -> int:
    """The server's process id, if it answers within ``timeout`` seconds."""
    return _pong(path, timeout)["pong"]


def forked_judge(path: str, timeout: float = 10) -> int | None:
    """The process id of the judge the server forked, if it forked one."""
    return _pong(path, timeout).get("judge")


def _pong(path: str, timeout: float) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        framing.send(s, {"ping": True})
        return framing.receive(s)[0]


# -- the provisioner -----------------------------------------------------------------------
class ForkedProcess:
    """Enough of subprocess.Popen for jupyter_client, for a process we did not fork."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode = None

    def poll(self):
        try:
            ended = psutil.Process(self.pid).status() in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
        except psutil.NoSuchProcess:
            ended = True
        if ended:
            self.returncode = self.returncode if self.returncode is not None else -1
            return self.returncode
        return None

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = 0.001  # most waits are short: look often at first, then every 20 ms
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError
            time.sleep(pause)
            pause = min(pause * 2, 0.02)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        try:
            os.kill(self.pid, signum)
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGKILL)  # process 1 of a namespace ignores SIGTERM; nothing to save


class ForkProvisioner(LocalProvisioner):
    """Get a kernel from the fork server. What to ask for is set by the executor on the
    kernel manager as ``autograder_launch``: the server's socket, the sandbox spec, the
    environment, and a function that returns a new socket to the judge."""

    async def launch_kernel(self, cmd, **kwargs):
        launch = self.parent.autograder_launch
        connection_file = cmd[cmd.index("-f") + 1]
        info = self.parent.get_connection_info()
        for port in ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"):
            # a restarted kernel binds the same paths: remove what the last one left
            Path(f"{info['ip']}-{info[port]}").unlink(missing_ok=True)
        request = {"connection": Path(connection_file).read_text(), "spec": launch["spec"], "env": launch["env"],
                   "extra": [arg for arg in cmd if arg.startswith("--HistoryManager")]}
        judge_fd = launch["judge_socket"]() if launch.get("judge_socket") else None
        try:
            pid = request_kernel(launch["server"], request, judge_fd)
        finally:
            if judge_fd is not None:
                os.close(judge_fd)
        self.process = ForkedProcess(pid)
        self.pid = self.pgid = pid
        self.cwd = launch["spec"]["scratch"]
        return self.connection_info

    async def kill(self, restart: bool = False) -> None:
        """SIGKILL, then return only once the kernel is gone: jupyter_client next checks
        whether it is alive and, if it still is, sleeps 0.1 s before looking again."""
        import asyncio

        await super().kill(restart)
        deadline = time.monotonic() + 1
        while self.process is not None and self.process.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.002)


class _CheckedChannel(AsyncZMQSocketChannel):
    """A channel that hands on only messages of the protocol, each paid for (``protocol``)."""

    reader: protocol.Reader | None = None
    name = ""

    async def _recv(self, **kwargs) -> dict:
        frames = await self.socket.recv_multipart(copy=False)
        return self.reader.read(frames, self.name)


class ShellChannel(_CheckedChannel):
    name = "shell"


class IOPubChannel(_CheckedChannel):
    name = "iopub"


class ReadyClient(AsyncKernelClient):
    """jupyter_client's kernel client, ready as soon as the kernel is: a kernel_info reply
    on shell and a first message on IOPub (the kernel's welcome to a new subscriber, or
    the status of that request), which proves IOPub is connected. The stock client then
    also waits for 0.2 s of IOPub silence, over half a forked kernel's start-up; nbclient
    ignores IOPub messages that belong to no cell anyway.

    Its channels hand on only messages of Jupyter's protocol, each paid for from the
    notebook's budget (``protocol``; the kernel manager's ``autograder_launch["budget"]``, one
    for every kernel of a notebook), and it opens only the two channels the grader reads
    (shell and IOPub): messages sent on a channel nobody reads would pile up in this process.
    Both reach the kernel through a ``relay`` that counts the kernel's bytes before ZeroMQ
    keeps them, and ends a kernel that sends more than any notebook needs (``flooded``)."""

    shell_channel_class = Type(ShellChannel)
    iopub_channel_class = Type(IOPubChannel)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        launch = getattr(self.parent, "autograder_launch", None) or {}
        self.reader = protocol.Reader(self.session, launch.get("budget") or protocol.Budget())
        self.sent = relay.Counter(self._end_kernel)
        self._relays: list = []
        self._kernel = None  # the kernel's process, as the channels start

    @property
    def flooded(self) -> bool:
        """Did its kernel send more than ``relay.MAX_KERNEL_BYTES`` (and so was ended)?"""
        return self.sent.flooded

    def _end_kernel(self) -> None:
        if self._kernel is not None:
            self._kernel.kill()

    def execute(self, code: str, *args, **kwargs):
        """Send an execute request; a refused message that names no parent belongs to it."""
        sent = super().execute(code, *args, **kwargs)
        if isinstance(sent, str):
            self.reader.last_request = sent
        return sent

    async def _async_wait_for_ready(self, timeout: float | None = None) -> None:
        from queue import Empty

        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        while True:
            msg_id = self.kernel_info()
            try:
                reply = await self._async_recv_reply(msg_id, timeout=1)
                await self._async_get_iopub_msg(timeout=0.2)
            except (TimeoutError, Empty):
                pass
            else:
                if reply["receipt"].refused is None:
                    self._handle_kernel_info_reply(reply)
                    return
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError("Kernel didn't respond in %d seconds" % timeout)

    wait_for_ready = _async_wait_for_ready

    def _create_connected_socket(self, channel: str, identity: bytes | None = None):
        """jupyter_client's socket, with ``MAX_MESSAGE`` and ``MAX_QUEUED`` set before it
        connects, through a relay (``relay``) to the kernel's own."""
        import zmq
        from jupyter_client.connect import channel_socket_types

        sock = self.context.socket(channel_socket_types[channel])
        sock.linger = 1000
        sock.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE)
        sock.setsockopt(zmq.RCVHWM, MAX_QUEUED)
        sock.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)
        if identity:
            sock.identity = identity
        url = self._make_url(channel)
        if url.startswith("ipc://"):  # (a kernel's sockets lie in <kernel folder>/ipc/)
            kernel_path = url.removeprefix("ipc://")
            self._relays.append(relay.Relay(kernel_path, os.path.dirname(os.path.dirname(kernel_path)), channel,
                                            self.sent))
            url = "ipc://" + self._relays[-1].path
        sock.connect(url)
        return sock

    def start_channels(self, shell: bool = True, iopub: bool = True, stdin: bool = False, hb: bool = False,
                       control: bool = False) -> None:
        """Shell and IOPub only (see the class), whose sends give up after ``SEND_TIMEOUT``
        seconds (``zmq.Again``) instead of blocking for ever when the kernel's end is gone, and
        no heartbeat: whether the kernel lives is read from its process (``ForkedProcess.poll``),
        and the heartbeat thread, once its socket had lost its peer, blocked ``stop_channels``
        for ever. No stdin: grading kernels may not ask for input (``allow_stdin`` is off)."""
        import zmq

        self._kernel = getattr(getattr(self.parent, "provisioner", None), "process", None)
        super().start_channels(shell=shell, iopub=iopub, stdin=False, hb=False, control=False)
        for channel in (self._shell_channel, self._iopub_channel):
            if channel is not None:
                channel.reader = self.reader
        if self._shell_channel is not None and self._shell_channel.socket is not None:
            self._shell_channel.socket.setsockopt(zmq.SNDTIMEO, int(SEND_TIMEOUT * 1000))

    def stop_channels(self) -> None:
        super().stop_channels()
        for channel_relay in self._relays:
            channel_relay.close()


class GradingKernelManager(AsyncKernelManager):
    """jupyter_client's kernel manager without its own control socket: it never sends on it (a
    grading kernel is interrupted by a signal and ended by SIGKILL), and what a kernel sent to
    it would wait, unread, in the grading process."""

    async def _async_post_start_kernel(self, **kwargs) -> None:
        await super()._async_post_start_kernel(**kwargs)
        self._close_control_socket()


def install_kernelspec(prefix: Path) -> Path:
    """Write the kernel spec ``autograder-fork`` under ``prefix`` (add it to JUPYTER_PATH)."""
    folder = Path(prefix) / "kernels" / KERNEL_NAME
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (autograder, forked)",
        "language": "python",
        "metadata": {"kernel_provisioner": {"provisioner_name": KERNEL_NAME}},
    }))
    return folder


def main(path: str, settings: dict) -> None:
    die_with_parent(signal.SIGTERM, settings.get("parent", 0))
    serve(path, settings)
