"""The grading kernels: forked from the warm server, fresh each time, and sandboxed."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from autograder import forkserver

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fork")
    sock = str(folder / "fork.sock")
    server = subprocess.Popen([sys.executable, "-m", "autograder.forkserver", sock],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    forkserver.install_kernelspec(folder / "share")
    saved = dict(os.environ)
    os.environ.update({"JUPYTER_PATH": str(folder / "share"), forkserver.ENV_SOCKET: sock})
    yield dict(os.environ)  # the kernel spec is looked up in this process's environment
    os.environ.clear()
    os.environ.update(saved)
    left = (Path("/proc") / str(server.pid) / "task" / str(server.pid) / "children").read_text().split()
    server.kill()
    server.wait()
    for pid in left:
        os.kill(int(pid), signal.SIGKILL)
    assert left == [], "kernels still running after their notebooks finished"


def run(cells, env, cwd):
    nb = new_notebook(cells=[new_code_cell(c) for c in cells])
    NotebookClient(nb, kernel_name=forkserver.KERNEL_NAME, timeout=60,
                   resources={"metadata": {"path": str(cwd)}}, allow_errors=True).execute(env=env)
    return ["".join(o.get("text", "")) + o.get("ename", "") for c in nb.cells for o in c.outputs]


def test_kernels_are_fresh_processes_with_torch_already_imported(kernels, tmp_path):
    probe = ["import os, sys; print(os.getpid(), 'torch' in sys.modules)",
             "print('leak' in globals())", "leak = 1"]
    first, second = run(probe, kernels, tmp_path), run(probe, kernels, tmp_path)
    assert first[0].split()[1] == second[0].split()[1] == "True"
    assert first[0].split()[0] != second[0].split()[0]  # a new process each time
    assert first[1].strip() == second[1].strip() == "False"  # nothing from the previous student


def test_sandbox_blocks_network_and_programs_and_caps_memory(kernels, tmp_path):
    (tmp_path / "mine.txt").write_text("x")
    out = run([
        "import socket\ntry:\n    socket.socket().connect(('127.0.0.1', 9))\n"
        "except PermissionError as e:\n    print('blocked', e)",
        "try:\n    socket.getaddrinfo('localhost', 80)\nexcept PermissionError as e:\n    print('blocked', e)",
        "import subprocess\ntry:\n    subprocess.run(['true'])\nexcept PermissionError as e:\n    print('blocked', e)",
        "try:\n    big = bytearray(50 * 2**30)\nexcept MemoryError:\n    print('MemoryError')",
        "import os; print(sorted(os.listdir('.')))",
        "print(1 + 1)",
    ], kernels, tmp_path)
    assert out[0].startswith("blocked") and "network" in out[0]
    assert out[1].startswith("blocked") and "getaddrinfo" in out[1]
    assert out[2].startswith("blocked") and "subprocess" in out[2]
    assert out[3].strip() == "MemoryError"
    assert out[4].strip() == "['mine.txt']"  # the working directory is the submission's own
    assert out[5].strip() == "2"  # and the kernel is still fine


def test_ready_client_never_loses_the_first_output(kernels, tmp_path):
    """ReadyClient skips the stock 0.2 s IOPub wait, but must still wait until IOPub is
    connected: otherwise the first cell's output would now and then go missing."""
    from traitlets.config import Config

    config = Config()
    config.AsyncKernelManager.client_class = "autograder.forkserver.ReadyClient"
    for attempt in range(15):
        nb = new_notebook(cells=[new_code_cell(f"print('first output', {attempt})")])
        used = []
        client = NotebookClient(nb, kernel_name=forkserver.KERNEL_NAME, timeout=60, config=config,
                                resources={"metadata": {"path": str(tmp_path)}},
                                on_cell_start=lambda **_: used.append(type(client.kc).__name__))
        client.execute()
        assert used == ["ReadyClient"]
        assert nb.cells[0].outputs[0]["text"] == f"first output {attempt}\n"
