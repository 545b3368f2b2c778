"""The judge: the process that decides every test cell's points, where no student code runs.

The grader starts it before any kernel. It makes a secret when it starts, reads the
instructor's source notebooks to know which checks each test cell must pass, and
then serves two kinds of connections:

* the grader's (a Unix socket in the run's private folder; one request per
  connection): open a session for a notebook, hand out a socket for its kernel,
  and mark when each test cell begins, when its answers are committed (``seal``) and
  when it ends;
* each kernel's (one end of a socket pair, inherited by the kernel; JSON lines): a
  kernel may commit answers (only between a test cell's ``begin`` and ``seal``), ask
  for scenarios and report observations. Scenarios for the running test cell's own
  checks are drawn from the secret; any other request (a student checking their work
  in their own cell) gets the public practice scenarios and counts for nothing.

When a test cell ends, its verdict is: every check the instructor's cell calls
passed, in that cell's run: a value check on the answers committed before the cell's
code reached the kernel, a function check on a report for every scenario issued for
it. Anything missing is a failure. The judge imports no student code and decodes only
JSON (``wire.codec``).

Forked by the fork server once that is warm (``kernels.forkserver._fork_judge``), with its
settings (``course_root``, the course secret) as a JSON line on a pipe only it reads; a judge
that replaces one that died is started by ``services`` in an interpreter of its own, its
settings on its standard input (``main``).
"""
from __future__ import annotations

import gc
import json
import os
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ... import judges
from ...judges import variants
from ...judges.seeds import secret_seed
from ...wire import framing
from ...exercises import ALL, CHECKS
from ...wire.spec import select
from ...wire.verdict import PASS, Verdict
from ..server_process import die_with_parent, listen
from . import cells

# What one notebook's kernels may make the judge do, all its kernels together (a notebook whose
# cells end their kernel with os._exit gets a new kernel, and a new connection, each time: with
# a budget per connection, one notebook took 64 s of the judge's CPU). The largest honest message
# is a few kB (a training loop's parameters after each step); two 60 MB lines once held the
# judge, which serves every kernel of a run, for 9-16 s each. Past a budget, the judge closes
# the connection, and a kernel the notebook starts later is refused its requests: its checks
# then fail (no record, 0 points), and nobody else waits.
MAX_LINE = 2 ** 20  # bytes in one kernel message
MAX_SESSION_BYTES = 16 * 2 ** 20  # bytes one notebook's kernels may send in all
MAX_SESSION_CPU = 10.0  # seconds of the judge's CPU one notebook's kernels' requests may use in all
MAX_COMMIT = 2 ** 20  # the committed answers of one cell, as JSON
# Scenarios issued to one notebook (a kernel asking for more gets none), in number and in size:
# the largest scenario is 19 kB of JSON (dead_parameters; ~45 kB in the judge's memory), every
# case of every check 214 kB in all, so 10 000 of the largest (the number's bound alone) held
# ~450 MB of one notebook's in the judge.
MAX_ISSUED = 10_000
MAX_ISSUED_BYTES = 8 * 2 ** 20  # JSON bytes of the scenarios issued to one notebook


@dataclass
class Issue:
    cell: str | None  # the test cell it was issued for (None: practice)
    call: tuple  # (check function, cases)
    module: object
    data: dict
    verdict: Verdict | None = None


@dataclass
class Session:
    required: dict  # grade id → [CheckCall]
    assignment: str = ""
    student: str | None = None  # nbgrader's id of the student who submitted (never the notebook's word)
    window: str | None = None
    sealed: bool = False
    committed: dict = field(default_factory=dict)  # grade id → {name: data}
    issued: dict = field(default_factory=dict)  # token → Issue
    verdicts: dict = field(default_factory=dict)  # grade id → Verdict
    lock: threading.Lock = field(default_factory=threading.Lock)
    # what its kernels spent of the judge, over every connection (``_serve_kernel``)
    received: framing.Allowance = field(default_factory=lambda: framing.Allowance(MAX_SESSION_BYTES))
    cpu: float = 0.0  # seconds of the judge's CPU
    issued_bytes: int = 0  # JSON bytes of the scenarios issued

    def spend_cpu(self, seconds: float) -> bool:
        """Add ``seconds`` of the judge's CPU; False once the budget is spent."""
        with self.lock:
            self.cpu += seconds
            return self.cpu <= MAX_SESSION_CPU


class Judge:
    def __init__(self, course_root: Path, course_secret: bytes | None = None):
        self.root = Path(course_root)
        self.secret = secrets.token_bytes(32)
        self.course_secret = course_secret  # draws each student's variant of a question (None: the published one)
        self.sessions: dict = {}
        self._notebooks: dict = {}
        self._lock = threading.Lock()

    # -- the grader's requests ----------------------------------------------------------
    def _required(self, assignment: str, notebook: str) -> dict:
        path = self.root / "source" / assignment / f"{notebook}.ipynb"
        key = (str(path), path.stat().st_mtime_ns)
        with self._lock:
            if key not in self._notebooks:
                self._notebooks[key] = cells.of_notebook(path)
            return self._notebooks[key]

    def open(self, assignment: str, notebook: str, student: str | None = None) -> dict:
        for part in (assignment, notebook):
            if not part or "/" in part or part.startswith("."):
                raise ValueError(f"bad name {part!r}")
        if student is not None and not isinstance(student, str):
            raise ValueError("bad student id")
        sid = secrets.token_hex(8)
        self.sessions[sid] = Session(self._required(assignment, notebook), assignment, student or None)
        return {"session": sid, "cells": sorted(self.sessions[sid].required)}

    def begin(self, session: Session, cell: str) -> dict:
        with session.lock:
            session.window, session.sealed = cell, False
            session.committed[cell] = None
            names = set()
            for call in session.required.get(cell, []):
                names |= call.names()
        return {"commit": sorted(names)}

    def seal(self, session: Session) -> dict:
        with session.lock:
            session.sealed = True
        return {"ok": True}

    def end(self, session: Session, cell: str) -> dict:
        with session.lock:
            if session.window != cell:
                return {"error": "not the running cell"}
            session.window = None
            verdict = self._cell_verdict(session, cell)
            if verdict is not None:
                session.verdicts[cell] = verdict
        return verdict.to_data() if verdict else {"ok": True, "unjudged": True}

    def verdicts(self, session: Session) -> dict:
        """The verdict of every judged test cell; a cell that never ran has none: 0 points."""
        with session.lock:
            out = {}
            for cell, calls in session.required.items():
                if calls:
                    verdict = session.verdicts.get(cell, Verdict.fail("no_record", "judge.no_record"))
                    out[cell] = verdict.to_data()
            return out

    def _cell_verdict(self, session: Session, cell: str) -> Verdict | None:
        calls = session.required.get(cell, [])
        if not calls:
            return None
        for call in calls:
            verdict = self._call_verdict(session, cell, call)
            if not verdict.ok:
                return verdict
        return PASS

    def _call_verdict(self, session: Session, cell: str, call) -> Verdict:
        module = judges.module(call.spec)
        if call.spec.kind == "value":
            committed = session.committed.get(cell)
            if committed is None:
                return Verdict.fail("not_committed", "judge.not_committed")
            try:
                answer = cells.evaluate(call.subject, committed)
                return module.verify_value(answer, call.cases, **self._options(session, call))
            except Exception:  # a malformed committed value must not take the judge down
                return Verdict.fail("malformed", "judge.malformed")
        issues = [i for i in session.issued.values() if i.cell == cell and i.call == (call.spec.check, call.cases)]
        if len(issues) < len(select(module.CASES, call.cases)):
            return Verdict.fail("no_record", "judge.no_record")
        for issue in issues:
            if issue.verdict is None:
                return Verdict.fail("no_record", "judge.no_record")
            if not issue.verdict.ok:
                return issue.verdict
        return PASS

    def _variant(self, session: Session, question: str) -> variants.Variant:
        seed = variants.seed(self.course_secret, session.assignment, question, session.student)
        return variants.variant(question, seed)

    def _options(self, session: Session, call) -> dict:
        """A check's constant arguments, and the student's own variant: a generated Quick
        Check's key (and the variant's name), or the variant of a value exercise's code."""
        question = call.options.get("question")
        if call.spec.check == "check_choice" and isinstance(question, str) and variants.has_variants(question):
            variant = self._variant(session, question)
            return {**call.options, "key": variant.key, "variant": variant.label}
        if call.spec.variants:
            return {**call.options, "variant": self._variant(session, call.spec.variants).shown()}
        return call.options

    def variant(self, session: Session, question: str) -> dict:
        """What the kernel may show of the student's own variant of a question (never its key)."""
        if not variants.has_variants(question):
            return {"error": "unknown question"}
        return {"variant": self._variant(session, question).shown()}

    def close(self, sid: str) -> dict:
        self.sessions.pop(sid, None)
        return {"ok": True}

    # -- a kernel's requests --------------------------------------------------------------
    def commit(self, session: Session, values) -> dict:
        size = len(json.dumps(values))
        with session.lock:
            cell = session.window
            if (cell is None or session.sealed or session.committed.get(cell) is not None
                    or not isinstance(values, dict) or size > MAX_COMMIT):
                return {"ok": False}
            session.committed[cell] = values
        return {"ok": True}

    def scenarios(self, session: Session, check: str, cases: str) -> dict:
        spec = CHECKS.get(check)
        if spec is None or spec.kind != "function" or cases not in ("visible", "hidden", "all"):
            return {"error": "unknown check"}
        module = judges.module(spec)
        with session.lock:
            if len(session.issued) >= MAX_ISSUED or session.issued_bytes >= MAX_ISSUED_BYTES:
                return {"error": "too many scenarios"}
            cell = session.window if session.sealed else None
            graded = cell is not None and any(
                (c.spec.check, c.cases) == (check, cases) for c in session.required.get(cell, []))
            out = []
            for index, case in enumerate(select(module.CASES, cases)):
                token = secrets.token_hex(8)
                seed = secret_seed(self.secret, token, check, cases, index) if graded else case["seed"]
                data = module.scenario(case, seed)
                session.issued[token] = Issue(cell if graded else None, (check, cases), module, data)
                session.issued_bytes += len(framing.dumps(data))
                out.append({"token": token, "data": data})
        return {"scenarios": out}

    def report(self, session: Session, token: str, observation) -> dict:
        with session.lock:
            issue = session.issued.get(token)
            if issue is None or issue.verdict is not None or not isinstance(observation, dict):
                return Verdict.fail("malformed", "judge.malformed").to_data()
        try:
            verdict = judges.verdict(issue.module, issue.data, observation)
        except Exception:  # whatever the kernel sent, the judge goes on
            verdict = Verdict.fail("malformed", "judge.malformed")
        with session.lock:
            issue.verdict = verdict
            if issue.cell is not None and issue.cell != session.window:
                issue.verdict = Verdict.fail("no_record", "judge.no_record")  # too late for its cell
        return verdict.to_data()


# -- serving ------------------------------------------------------------------------------
def _serve_kernel(judge: Judge, session: Session, conn: socket.socket) -> None:
    """One kernel's requests, in a thread of their own, until it closes the socket or its
    notebook's kernels have spent their budget (``MAX_SESSION_BYTES``, ``MAX_SESSION_CPU``,
    counted over all of them: ``Session``). A line that is not a request gets an error reply
    (an over-long one is skipped to its end): the kernel's own requests carry an id that their
    replies echo, so nothing written in between can take their place."""
    lines = framing.Lines(conn, MAX_LINE, budget=session.received)
    try:
        while session.cpu <= MAX_SESSION_CPU:
            started = time.thread_time()
            try:
                line = lines.line()
            except framing.Spent:
                return
            except framing.TooLong:
                reply = {"error": "line too long"}
            else:
                if not line:
                    return
                reply = _answer(judge, session, line)
            framing.send(conn, reply)
            session.spend_cpu(time.thread_time() - started)
    except OSError:
        return
    finally:
        conn.close()


def _answer(judge: Judge, session: Session, line: bytes) -> dict:
    try:
        request = framing.loads(line)
    except ValueError:
        return {"error": "not JSON"}
    if not isinstance(request, dict):
        return {"error": "not a request"}
    op, request_id = request.get("op"), request.get("id")
    if op == "commit":
        reply = judge.commit(session, request.get("values"))
    elif op == "scenarios":
        reply = judge.scenarios(session, str(request.get("check")), str(request.get("cases")))
    elif op == "variant":
        reply = judge.variant(session, str(request.get("question")))
    elif op == "report":
        reply = judge.report(session, str(request.get("token")), request.get("observation"))
    else:
        reply = {"error": "unknown request"}
    return {**reply, "id": request_id if isinstance(request_id, str) else None}


def _handle(judge: Judge, conn: socket.socket) -> None:
    """One request from the grader."""
    with conn:
        request, _ = framing.receive(conn, MAX_LINE)
        op = request["op"]
        try:
            if op == "ping":
                reply = {"ok": True, "pid": os.getpid()}
            elif op == "open":
                reply = judge.open(request["assignment"], request["notebook"], request.get("student"))
            else:
                session = judge.sessions[request["session"]]
                if op == "channel":
                    mine, theirs = socket.socketpair()
                    threading.Thread(target=_serve_kernel, args=(judge, session, mine), daemon=True).start()
                    framing.send(conn, {"ok": True}, fds=(theirs.fileno(),))
                    theirs.close()
                    return
                reply = {"begin": lambda: judge.begin(session, request["cell"]),
                         "seal": lambda: judge.seal(session),
                         "end": lambda: judge.end(session, request["cell"]),
                         "verdicts": lambda: judge.verdicts(session),
                         "close": lambda: judge.close(request["session"]),
                         }[op]()
        except (KeyError, ValueError, OSError, cells.UnsupportedTestCell) as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        framing.send(conn, reply)


def _warm_up() -> None:
    """Import the judges, and build one of the grader's models and optimizers: the first model
    and optimizer of a process import the rest of torch (0.9 s of CPU), which otherwise fell on
    the first notebook of every run, the instructor's own, while the rest of the machine
    waited for its verdict."""
    import torch

    from ...wire.scenarios.training_loop import make_model, make_optimizer

    torch.set_num_threads(1)
    for spec in ALL:
        judges.module(spec)
    model = make_model()
    for optimizer in ("sgd", "adam"):
        make_optimizer({"optimizer": optimizer, "lr": 0.1}, model.parameters())


def serve(path: str, course_root: str, course_secret: bytes | None = None) -> None:
    # As the fork server does: no collection while torch's half a million lasting objects are
    # made (2.37 s of CPU to warm up instead of 2.81), then keep the collector away from them.
    gc.disable()
    _warm_up()
    gc.freeze()
    gc.enable()
    judge = Judge(Path(course_root), course_secret)
    server = listen(path, 64)
    while True:
        conn, _ = server.accept()
        threading.Thread(target=_handle, args=(judge, conn), daemon=True).start()


def main(path: str, settings: dict) -> None:
    import signal

    die_with_parent(signal.SIGKILL, settings.get("parent", 0))
    secret = settings.get("course_secret")
    serve(path, settings["course_root"], bytes.fromhex(secret) if secret else None)
