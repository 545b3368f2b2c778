"""JudgedExecute: nbgrader's Execute, in a sandboxed kernel, with the judge deciding points.

* The kernel is forked from the run's fork server into its sandbox (``sandbox``), with a
  socket to the judge and a copy of the submission folder's regular files as its only
  files. Plain ``nbgrader autograde`` starts the judge and the fork server itself on its
  first notebook; ``autograder grade`` hands its workers its own.
* Around every test cell the judge is told: ``begin`` (the judge says which of the
  student's variables the cell's checks read), then those variables are committed from
  the kernel, then ``seal``, then the cell itself runs, then ``end``. The verdicts go to
  ``resources["autograder"]["verdicts"]`` for ApplyVerdicts. What the kernel runs of a
  test cell is ``cells.kernel_source``: no Quick Check key, no comment (the
  notebook keeps the instructor's text).
* Under plain ``nbgrader autograde`` (no ``autograder grade`` run around it), the first
  notebook of each name is preceded by the instructor's own (``self_check.once``): if that
  does not get full marks, every such notebook is refused with the reason, never zeroed.
* A cell that kills or hangs the kernel costs only itself: the cell gets an error
  output, a fresh kernel replays the cells that ran before, and execution goes on. So does
  a kernel that sends more than any notebook needs (``kernels.relay``: it is ended).
  Plain Execute fails the whole notebook instead, and the student loses every point of it.
* A whole notebook has a time budget (``notebook_timeout``; by default ten cells' worth of
  ``timeout``). Every wait here ends by it, and the cells it does not reach get an error
  and no points: a notebook that stalls or garbles its kernel again and again costs its
  own student, never the run (a CI run once waited over 200 s on one such notebook).
* A whole notebook has a budget of what its kernels may send (``max_kernel_bytes``), paid
  as each message arrives (``kernels.protocol``): every frame of every message on every
  channel, whatever its type, each output paying more for what it costs in the pages
  made of it; an ``update_display_data`` (or a display sharing a display id) pays once
  for every output nbclient copies it into. Past the budget, each output keeps its kind
  (stdout, stderr, a display, a result, an error) and loses its content, and a cell's run
  of such outputs is one: a note, while the notes last (``MAX_NOTES``, and always in a
  graded cell), so nbgrader's scoring sees what it would have seen (a cell that wrote to
  stderr or failed still scores 0). 300 outputs just under the per-output cap made a
  28 MB notebook and feedback page; 300 errors of 198 000 characters (uncounted then)
  57 MB; one update of 120 000 characters copied into 400 displays 38 MB.
* A message that is not what Jupyter's protocol says (``kernels.protocol``: a content that
  is a list, a field of the wrong type, a stream whose name is 3 MB) costs at most the cell
  it arrives in: one error output there says so, and grading goes on (one such message
  once zeroed the whole notebook as the grader's own failure).
* Widget messages are not kept (``store_widget_state`` off, comm messages ignored): a
  widget's state is the kernel's to write, and nbconvert would render it in the
  instructor's browser with the widget manager's script.
"""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import zmq
from jupyter_core.utils import run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer, Unicode

from ... import messages
from ...kernel import commit
from ..judging import cells
from ..judging.client import JudgeSession
from ..kernels import protocol, relay, services
from ..kernels.forkserver import KERNEL_NAME, GradingKernelManager
from ..kernels.sandbox import DEFAULT_MEMORY_MB, DEFAULT_SCRATCH_MB
from ..time_budget import notebook_budget
from . import self_check

# Notes past the budget (one per cell and kind of output) outside graded cells: a notebook of a
# thousand cells that each print to stdout and stderr, display, return and fail would otherwise
# keep 5 000 notes (~2 MB of feedback page) once its budget is spent.
MAX_NOTES = 100
DISPLAYS = ("display_data", "execute_result", "update_display_data")


class JudgedExecute(Execute):
    kernel_name = Unicode(KERNEL_NAME, config=True)
    shutdown_kernel = "immediate"  # each kernel serves one notebook and is thrown away
    sandbox = Bool(True, config=True,
                   help="Run kernels in the operating system's sandbox (False: only when the machine cannot)")
    memory_mb = Integer(DEFAULT_MEMORY_MB, config=True,
                        help="Memory a kernel may use beyond what the warm kernel already maps")
    scratch_mb = Integer(DEFAULT_SCRATCH_MB, config=True, help="Size of a kernel's working folder")
    notebook_timeout = Integer(0, config=True,
                               help="Seconds one notebook may take in all (0: 10 times timeout); the cells "
                                    "it does not reach get an error and no points")
    max_kernel_bytes = Integer(1_000_000, config=True,
                               help="Bytes one notebook's kernels may send in all, every message counted, before "
                                    "outputs lose their content (an honest lesson notebook: 180-260 kB)")
    store_widget_state = False
    probe_timeout = 5  # seconds a live kernel has to answer kernel_info after a timeout
    restart_timeout = 60  # seconds a restarted kernel has to answer

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", GradingKernelManager)
        super().__init__(*args, **kwargs)

    # -- a notebook ---------------------------------------------------------------------
    def preprocess(self, nb, resources=None, km=None):
        nbgrader = resources["nbgrader"]
        root = Path(self.config.CourseDirectory.get("root") or os.getcwd())
        self._services = services.for_this_process(root, self.sandbox, services.kept_out(self.config))
        if not self._services.attached and nbgrader.get("db_url"):
            # plain nbgrader autograde (its converter names the gradebook): no run checked the
            # instructor's notebook yet
            self_check.once(self.config, root, nbgrader["assignment"], nbgrader["notebook"], nbgrader["db_url"])
        self._session = JudgeSession(self._services.judge_socket, nbgrader["assignment"], nbgrader["notebook"],
                                     None if nbgrader.get("self_check") else nbgrader.get("student"))
        self._folder = self._services.kernel_folder()
        self._stage = resources.get("metadata", {}).get("path") or os.getcwd()
        self._language = messages.notebook_language(nb)
        self._ran_ok: list = []
        self._deadline = time.monotonic() + self.budget()
        self._budget = protocol.Budget(self.max_kernel_bytes)
        self._stubbed: set = set()  # (cell index, output kind) already reduced to a note
        self._notes = 0
        self._refused: set = set()  # cells a message not of the protocol arrived in
        try:
            nb, resources = super().preprocess(nb, resources, km)
            verdicts = self._session.verdicts()
        finally:
            self._session.close()
            self._remove_folder()
        resources.setdefault("autograder", {})["verdicts"] = {cell: v.to_data() for cell, v in verdicts.items()}
        return nb, resources

    def budget(self) -> float:
        """Seconds this notebook may take in all."""
        return notebook_budget(self.notebook_timeout, self.timeout)

    def _left(self, at_most: float | None = None) -> float:
        """Seconds left of the notebook's budget (at most ``at_most``), never below zero."""
        left = max(0.0, self._deadline - time.monotonic())
        return left if at_most is None else min(left, at_most)

    def _remove_folder(self) -> None:
        shutil.rmtree(self._folder, ignore_errors=True)

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        km.transport = "ipc"
        km.ip = str(self._folder / "ipc" / "k")
        km.client_class = "autograder.instructor.kernels.forkserver.ReadyClient"
        spec = {"scratch": str(self._folder / "scratch"), "stage": str(self._stage), "ipc": str(self._folder / "ipc"),
                "memory_mb": self.memory_mb, "scratch_mb": self.scratch_mb}
        env = {"NBGRADER_EXECUTION": os.environ.get("NBGRADER_EXECUTION", "autograde"), "LESSONS_NO_PLOTS": "1",
               "AUTOGRAD_LESSONS_LANG": self._language}
        km.autograder_launch = {"server": self._services.fork_socket, "spec": spec, "env": env,
                                "judge_socket": self._session.kernel_socket, "budget": self._budget}
        return km

    # -- a cell -------------------------------------------------------------------------
    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and not self._left():
            self._record(cell, "out_of_time")
            return cell, resources
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id") if utils.is_grade(cell) else None
        judged = cell.cell_type == "code" and grade_id in self._session.cells
        if judged:
            names = self._session.begin(grade_id)
            if names:
                self._commit(names)
            self._session.seal()
        shown = cell.source
        if grade_id is not None and cell.cell_type == "code":
            cell.source = cells.kernel_source(shown)  # no secret argument reaches the kernel
        try:
            return self._run(cell, resources, index)
        finally:
            cell.source = shown
            if judged:
                self._session.end(grade_id)

    def _commit(self, names: list) -> None:
        """Send the answers the next test cell reads to the judge, before the kernel sees that cell."""
        if not self._shell_reply(lambda: self.kc.execute(commit.snippet(names), silent=True, store_history=False),
                                 self._left(self.timeout)):
            self._restart_and_replay()  # the student's code hangs even this: the cell gets no answers

    def _run(self, cell, resources, index):
        try:
            return self._execute(cell, resources, index)
        finally:
            self._say_refused(cell, index)

    def _execute(self, cell, resources, index):
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._record(cell, "kernel_flooded" if self.kc.flooded else "kernel_died")
            self._restart_and_replay()
            return cell, self.resources
        except (CellTimeoutError, zmq.Again):  # timed out and the interrupt went unheeded; or no send
            self._record(cell, "kernel_unresponsive")
            self._restart_and_replay()
            return cell, self.resources
        if self._timed_out(cell) and not self._kernel_answers():
            self._record(cell, "kernel_unresponsive")
            self._restart_and_replay()
        elif cell.cell_type == "code" and not any(o.output_type == "error" for o in cell.get("outputs", [])):
            self._ran_ok.append(cell.source)
        return cell, self.resources

    # -- outputs as they arrive -------------------------------------------------------------
    def process_message(self, msg, cell, cell_index):
        receipt = msg.get("receipt")
        if receipt is not None and receipt.refused:
            self._refuse(cell, cell_index, receipt)
            return None
        if receipt is None:  # not from a kernel (ReadyClient gives every message of a kernel one)
            return super().process_message(msg, cell, cell_index)
        if msg["msg_type"] in protocol.OUTPUTS:
            msg = self._within_budget(msg, cell, cell_index)
            if msg is None:
                return None
        return super().process_message(msg, cell, cell_index)

    def handle_comm_msg(self, outs, msg, cell_index):
        """Widget traffic is the kernel's to write: none of it is kept (see the module's docstring)."""

    def on_cell_executed(self, **kwargs):
        """nbgrader's hook adds an error reply's error to the cell when no output names it: a
        refused reply, or one past the budget, adds a note instead of what the kernel sent."""
        reply, cell = kwargs["execute_reply"], kwargs["cell"]
        receipt = reply.get("receipt") if reply else None
        if receipt is not None and reply["content"].get("status") == "error" and (receipt.refused or not receipt.paid):
            key = "malformed_message" if receipt.refused else "output_budget"
            name = protocol.REFUSED if receipt.refused else reply["content"]["ename"][:protocol.MAX_NAME]
            said = any(o.output_type == "error" and o.get("ename") == name for o in cell.outputs)
            if said or not self._may_note(cell):
                return None
            text = self._note(key)
            reply = {**reply, "content": {**reply["content"], "ename": name, "evalue": text, "traceback": [text]}}
            kwargs["execute_reply"] = reply
        return super().on_cell_executed(**kwargs)

    def _note(self, key: str) -> str:
        return messages.render(f"grading.{key}", {"kept": self.max_kernel_bytes}, self._language)

    def _may_note(self, cell) -> bool:
        """One note more: always in a graded cell (a score reads its outputs), else while
        ``MAX_NOTES`` last."""
        if utils.is_grade(cell):
            return True
        self._notes += 1
        return self._notes <= MAX_NOTES

    def _refuse(self, cell, cell_index: int, receipt) -> None:
        """A message that is not the protocol's: the cell it arrived in gets an error once it
        has run (``_say_refused``: after its own outputs, which it may clear)."""
        self.log.warning("cell %d: refused a kernel message (%s)", cell_index, receipt.refused)
        self._refused.add(cell_index)

    def _say_refused(self, cell, cell_index: int) -> None:
        if cell_index not in self._refused or (cell_index, "refused") in self._stubbed:
            return
        self._stubbed.add((cell_index, "refused"))
        said = any(o.output_type == "error" and o.get("ename") == protocol.REFUSED for o in cell.get("outputs", []))
        if said or not self._may_note(cell):  # (a refused reply said so already: nbgrader's hook)
            return
        text = self._note("malformed_message")
        cell.setdefault("outputs", []).append(
            NotebookNode(output_type="error", ename=protocol.REFUSED, evalue=text, traceback=[text]))

    def _within_budget(self, msg: dict, cell, cell_index: int) -> dict | None:
        """The message as it may be kept: whole if it was paid for (a display once more for each
        output nbclient copies it into), else an output of the same kind holding only a note
        (once per cell and kind, while notes last), or nothing."""
        receipt, content, kind = msg["receipt"], msg["content"], msg["msg_type"]
        paid = receipt.paid
        display_id = content.get("transient", {}).get("display_id") if kind in DISPLAYS else None
        if paid and display_id is not None:
            copies = sum(len(indices) for indices in self._display_id_map.get(display_id, {}).values())
            paid = self._budget.pay(receipt.weight * copies) if copies else True
        if paid:
            return msg
        key = (cell_index, kind, content.get("name"))
        if kind == "update_display_data" or key in self._stubbed or not self._may_note(cell):
            return None
        self._stubbed.add(key)
        note = self._note("output_budget")
        if kind == "stream":
            content = {"name": content["name"], "text": note + "\n"}
        elif kind == "error":
            content = {"ename": content["ename"][:protocol.MAX_NAME], "evalue": note, "traceback": [note]}
        else:  # no display id: the note replaces nothing else
            content = {"data": {"text/plain": note}, "metadata": {},
                       **({"execution_count": content.get("execution_count")} if kind == "execute_result" else {})}
        return {**msg, "content": content}

    # -- surviving a kernel that dies or hangs ----------------------------------------------
    @staticmethod
    def _timed_out(cell) -> bool:
        return any(o.output_type == "error" and o.get("ename") == "CellTimeoutError"
                   for o in cell.get("outputs", []))

    def _kernel_answers(self, timeout: float | None = None) -> bool:
        """Does the kernel answer a kernel_info request within ``timeout`` seconds?"""
        return self._shell_reply(self.kc.kernel_info, self._left(timeout or self.probe_timeout))

    def _record(self, cell, key: str) -> None:
        text = messages.render(f"grading.{key}", {"megabytes": relay.MAX_KERNEL_BYTES // 2 ** 20}, self._language)
        name = {"kernel_died": "KernelDied", "out_of_time": "NotebookTimeout",
                "kernel_flooded": "KernelFlooded"}.get(key, "KernelUnresponsive")
        cell.setdefault("outputs", []).append(
            NotebookNode(output_type="error", ename=name, evalue=text, traceback=[text]))

    def _restart_and_replay(self) -> None:
        """A fresh kernel, a fresh client, and the cells that ran before, run again. A cell
        that ran in time once but gets no reply when replayed (it garbled the kernel's own
        sockets, say) is dropped from later replays; if the kernel is still busy with it,
        the replay stops there, and the next cell finds that out."""
        run_sync(self.km.restart_kernel)(now=True)
        if not self._fresh_client():
            return  # the next cell finds the kernel dead or silent, and restarts it again
        for source in list(self._ran_ok):
            if self._shell_reply(lambda: self.kc.execute(source, silent=True, store_history=False),
                                 self._left(self.timeout)):
                continue
            self._ran_ok.remove(source)
            if not self._kernel_answers():
                break
        self._drain_iopub()

    def _fresh_client(self) -> bool:
        """Connect to the restarted kernel with new sockets and wait until it answers on shell
        and IOPub (``ReadyClient``). The old client's connections keep whatever the student's
        code did to them: code in the kernel can write into the kernel's end of its ZeroMQ
        sockets, and after such garbage the old client's shell socket had no peer left, so
        its next send blocked for ever. False: the kernel died, or did not get ready in
        ``restart_timeout`` seconds (or what is left of the notebook's budget)."""
        try:
            self.kc.stop_channels()
        except Exception:  # noqa: BLE001  (a broken client is being thrown away)
            pass
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.allow_stdin = False
        try:
            run_sync(self.kc.wait_for_ready)(timeout=max(0.1, self._left(self.restart_timeout)))
        except (RuntimeError, zmq.ZMQError):
            return False
        return True

    def _shell_reply(self, send, timeout: float) -> bool:
        """Send one request on the shell channel (``send`` returns its id) and wait up to
        ``timeout`` seconds for its reply. False: it could not be sent, or no reply came."""
        end = time.monotonic() + timeout
        try:
            msg_id = send()
            while True:
                reply = run_sync(self.kc.get_shell_msg)(timeout=max(0.0, end - time.monotonic()))
                if reply["parent_header"].get("msg_id") == msg_id:
                    return True
        except Exception:  # noqa: BLE001  (queue.Empty: no reply in time; zmq.Again: could not send)
            return False

    def _drain_iopub(self, most: float = 2.0) -> None:
        """Drop what the replay printed, for at most ``most`` seconds (a thread the student
        started may print for ever)."""
        end = time.monotonic() + most
        while time.monotonic() < end:
            try:
                run_sync(self.kc.get_iopub_msg)(timeout=0.2)
            except Exception:  # queue.Empty: quiet
                return
