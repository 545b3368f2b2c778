"""A scripted student: a real Jupyter kernel that runs a lesson's cells one request at a time, as
JupyterLab sends them, and what each cell showed; and, for every exercise of a lesson, the
answers a student gives on the way (a wrong one from the catalogues, then the right one).

The expected words come from this test process, which runs the same checks in the same
language on the same answers: the kernel must show exactly what the grader says, in the
notebook's language, which the kernel finds the way it does for a student (the notebook's
metadata), never from the test.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from catalogue import TRAIN_ACCUMULATE, TRAIN_LOOP
from catalogue_lessons import LESSON1, LESSON2, LESSON3, LESSON4
from jupyter_client.manager import KernelManager

from autograder.exercises import EXERCISES

CATALOGUE = TRAIN_LOOP + TRAIN_ACCUMULATE + LESSON1 + LESSON2 + LESSON3 + LESSON4
WIDGET = "application/vnd.jupyter.widget-view+json"
# what the student must never read: the grader's ids for lessons, test cells and questions,
# and the grader's own code
INTERNAL = re.compile(r"\b0\d_[a-z]+(_[a-z]+)*\b|\b\w+_tests\b|\bquiz_q\d\b|\bl\d_[qp]\d\b|\bl\d_\w+_predictions\b"
                      r"|Traceback \(most recent|GradingCheck|site-packages|autograder/|\.py\b")


@dataclass
class Shown:
    """What one cell showed: its printed text (with the value it ended on), what it printed alone,
    its error (the lines IPython rendered), the kinds of its displays."""
    text: str = ""
    printed: str = ""
    error: list | None = None
    ename: str = ""
    kinds: set = field(default_factory=set)

    @property
    def failure(self) -> str:
        return "\n".join(self.error or [])


class Kernel:
    """A python3 kernel, as JupyterLab starts one for a notebook in ``folder``."""

    def __init__(self, env: dict, folder: Path):
        self.manager = KernelManager(kernel_name="python3")
        self.manager.start_kernel(env=env, cwd=str(folder))
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=120)

    def run(self, code: str, when_printed: tuple | None = None, timeout: float = 120) -> Shown:
        """Run ``code`` as one cell; ``when_printed``: (text, action): call ``action()`` once
        the cell has printed ``text`` (a student pressing Stop once they see it)."""
        msg_id = self.client.execute(code, stop_on_error=False)
        shown, acted = Shown(), False
        while True:
            msg = self.client.get_iopub_msg(timeout=timeout)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "status" and content["execution_state"] == "idle":
                return shown
            if kind == "stream":
                shown.text += content["text"]
                shown.printed += content["text"]
            elif kind == "error":
                shown.error, shown.ename = content["traceback"], content["ename"]
            elif kind in ("display_data", "execute_result"):
                shown.kinds |= set(content["data"])
                shown.text += content["data"].get("text/plain", "") if kind == "execute_result" else ""
            if when_printed and not acted and when_printed[0] in shown.text:
                when_printed[1]()
                acted = True

    def interrupt(self) -> None:
        self.manager.interrupt_kernel()

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


def in_language(lang: str):
    """Run this process's checks in ``lang``, as the kernel of a notebook in ``lang`` does."""
    @contextlib.contextmanager
    def scope():
        before = os.environ.get("AUTOGRAD_LESSONS_LANG")
        os.environ["AUTOGRAD_LESSONS_LANG"] = lang
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("AUTOGRAD_LESSONS_LANG", None)
            else:
                os.environ["AUTOGRAD_LESSONS_LANG"] = before
    return scope()


def said(call) -> tuple[str, str]:
    """(what ``call()`` printed, the message it failed with as the cell shows it, or "")."""
    from autograder.kernel.checks import CheckFailed

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            call()
        except CheckFailed as failed:
            return out.getvalue(), "\n".join(failed._render_traceback_())
    return out.getvalue(), ""


def run_here(code: str, namespace: dict, name: str) -> None:
    """Run a cell's code in this process, its lines readable as a kernel's are (the grader
    quotes the student's lines in its messages)."""
    import linecache

    filename = f"<walk {name}>"
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    exec(compile(code, filename, "exec"), namespace)


def spec_of_answer_cell(grade_id: str):
    return next((spec for spec in EXERCISES if spec.cells[0] == grade_id), None)


def wrong_entry(spec):
    """The first catalogued wrong answer the visible check catches."""
    return next(e for e in CATALOGUE if e.function == spec.answer[0] and e.mistake and e.cases == "visible")


def entry_code(entry) -> str:
    return textwrap.dedent(entry.source).strip("\n")


def stuck_forever(spec) -> str:
    """A function that prints that it started, then waits until the student presses Stop."""
    return (f"def {spec.answer[0]}(*args, **kwargs):\n    import threading\n    print('half-way', flush=True)\n"
            f"    threading.Event().wait()\n")
