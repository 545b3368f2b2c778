"""Fresh, pre-warmed, sandboxed kernels in milliseconds: a fork server for grading.

Starting a kernel and importing torch costs ~3 s of CPU per submission. The fork
server pays it once: it imports ipykernel, torch (with torch.optim), matplotlib and
the lesson packages, runs no user code, and then forks one child per kernel
requested. Each child is a new process with nothing of any student in it; it
applies the sandbox (autograder.sandbox) and becomes an IPython kernel on the
connection file jupyter_client wrote.

``ForkProvisioner`` is the jupyter_client kernel provisioner that asks the server
for a kernel instead of starting ``python -m ipykernel``. It is registered as the
entry point ``autograder-fork``; ``install_kernelspec`` writes a kernel spec that
uses it.
"""
from __future__ import annotations

import gc
import json
import os
import signal
import socket
import sys
from pathlib import Path

from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.provisioning import LocalProvisioner

from . import sandbox

KERNEL_NAME = "autograder-fork"
ENV_SOCKET = "AUTOGRADER_FORKSERVER"
# No IPython history in grading processes: it would write every student's code (and the
# hidden tests) into the instructor's history.sqlite, where the next student's kernel could
# read them, and its saving thread costs CPU in every kernel.
NO_HISTORY = "--HistoryManager.enabled=False"


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
    import torch._dynamo  # noqa: F401  (first use of torch.optim imports it)
    import torch.optim  # noqa: F401
    import lessons.exercises  # noqa: F401
    import lessons.quiz  # noqa: F401
    import lessons.widgets  # noqa: F401
    import autograder.checks  # noqa: F401


def _reap(signum, frame) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _become_kernel(request: dict) -> None:
    """In the forked child: sandbox this process, then run an IPython kernel, or (for a
    ``verify`` request) re-run a notebook's checks and write the results. Never returns."""
    try:
        os.setsid()
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sandbox.apply(request.get("limits", {}))
        # one thread per kernel: kernels run side by side, and torch's thread pools fighting
        # over two cores cost more than a tiny model gains from them
        import torch
        torch.set_num_threads(1)
        if "verify" in request:
            from . import verify
            results = verify.run(request["verify"], request.get("timeout", 120))
            Path(request["result"]).write_text(json.dumps(results))
            return
        from ipykernel.kernelapp import IPKernelApp
        app = IPKernelApp.instance()
        app.initialize(["-f", request["connection_file"], *request.get("extra", []), NO_HISTORY])
        app.start()
    finally:
        os._exit(0)


def serve(path: str) -> None:
    # Importing torch & co. creates half a million objects that live as long as the process;
    # the collector kept scanning them during the imports (a third of the warm-up time) and
    # found ~10 000 unreachable ones (a megabyte or two). So: no collection while warming up,
    # then freeze everything, keeping every child's collector away from the warm objects:
    # scanning them would write to (and so copy) most of the memory children share with us.
    gc.disable()
    _warm_up()
    gc.freeze()
    gc.enable()
    signal.signal(signal.SIGCHLD, _reap)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path + ".tmp")
    server.listen(16)
    os.rename(path + ".tmp", path)  # the socket appears only once it accepts connections
    print("ready", flush=True)
    while True:
        try:
            conn, _ = server.accept()
        except InterruptedError:
            continue
        with conn:
            request = json.loads(conn.makefile().readline())
            if request.get("stop"):
                return
            pid = os.fork()
            if pid == 0:
                server.close()
                conn.close()
                _become_kernel(request)
            conn.sendall((json.dumps({"pid": pid}) + "\n").encode())


def request_kernel(path: str, request: dict, wait: float = 120) -> int:
    """Ask the server for a forked child; wait for the server to be ready if it is still warming up."""
    import time

    deadline = time.monotonic() + wait
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(path)
        s.sendall((json.dumps(request) + "\n").encode())
        return json.loads(s.makefile().readline())["pid"]


# -- the provisioner -----------------------------------------------------------------------
class ForkedProcess:
    """Enough of subprocess.Popen for jupyter_client, for a process we did not fork."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode = None

    def poll(self):
        try:
            with open(f"/proc/{self.pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            state = "X"
        if state in ("Z", "X"):
            self.returncode = self.returncode if self.returncode is not None else -1
            return self.returncode
        return None

    def wait(self, timeout=None):
        import time
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
        self.send_signal(signal.SIGTERM)


class ForkProvisioner(LocalProvisioner):
    """Get a kernel from the fork server named by $AUTOGRADER_FORKSERVER."""

    async def launch_kernel(self, cmd, **kwargs):
        connection_file = cmd[cmd.index("-f") + 1]
        extra = [arg for arg in cmd if arg.startswith("--HistoryManager")]
        env = dict(kwargs.get("env") or os.environ)
        request = {"connection_file": connection_file, "cwd": str(kwargs.get("cwd") or os.getcwd()),
                   "env": env, "extra": extra, "limits": sandbox.limits_from_env(env)}
        pid = request_kernel(env[ENV_SOCKET], request)
        self.process = ForkedProcess(pid)
        self.pid = self.pgid = pid
        self.cwd = request["cwd"]
        return self.connection_info

    async def kill(self, restart: bool = False) -> None:
        """SIGKILL, then return only once the kernel is gone: jupyter_client next checks
        whether it is alive and, if it still is, sleeps 0.1 s before looking again."""
        import asyncio
        import time

        await super().kill(restart)
        deadline = time.monotonic() + 1
        while self.process is not None and self.process.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.002)


class ReadyClient(AsyncKernelClient):
    """jupyter_client's kernel client, ready as soon as the kernel is: a kernel_info reply
    on shell and a first message on IOPub (the kernel's welcome to a new subscriber, or
    the status of that request), which proves IOPub is connected. The stock client then
    also waits for 0.2 s of IOPub silence, over half a forked kernel's start-up; nbclient
    ignores IOPub messages that belong to no cell anyway."""

    async def _async_wait_for_ready(self, timeout: float | None = None) -> None:
        import time
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
                self._handle_kernel_info_reply(reply)
                return
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError("Kernel didn't respond in %d seconds" % timeout)

    wait_for_ready = _async_wait_for_ready


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


if __name__ == "__main__":
    serve(sys.argv[1])
