"""Run cells in a grading kernel, as the grader starts it: forked from the run's fork server,
in its sandbox, with a socket to the judge and a copy of a stage folder as its files."""
from __future__ import annotations

import os
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from autograder.instructor.judging.client import JudgeSession
from autograder.instructor.kernels import forkserver


class GradingKernelClient(NotebookClient):
    def __init__(self, nb, services, stage: Path, env: dict | None = None, **kw):
        super().__init__(nb, kernel_name=forkserver.KERNEL_NAME, kernel_manager_class=AsyncKernelManager,
                         allow_errors=True, **kw)
        self.services, self.stage, self.extra_env = services, stage, env or {}
        self.session = JudgeSession(services.judge_socket, "03_zeroing_grad", "03_zeroing_grad")
        self.folder = services.kernel_folder()

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        km.transport, km.ip = "ipc", str(self.folder / "ipc" / "k")
        km.client_class = "autograder.instructor.kernels.forkserver.ReadyClient"
        km.autograder_launch = {
            "server": self.services.fork_socket, "env": self.extra_env, "judge_socket": self.session.kernel_socket,
            "spec": {"scratch": str(self.folder / "scratch"), "stage": str(self.stage),
                     "ipc": str(self.folder / "ipc"), "memory_mb": 2048, "scratch_mb": 64}}
        return km


def _text(cell) -> str:
    return "".join(f"{o['ename']}: {o['evalue']}" if o.get("output_type") == "error" else "".join(o.get("text", ""))
                   for o in cell.outputs)


def run(cells: list, services, stage: Path, env: dict | None = None, timeout: int = 60) -> list:
    """The text each cell printed (its error's name and value if it failed)."""
    nb = new_notebook(cells=[new_code_cell(c) for c in cells])
    os.environ["JUPYTER_PATH"] = str(services.share)
    GradingKernelClient(nb, services, stage, env, timeout=timeout).execute()
    return [_text(cell) for cell in nb.cells]
