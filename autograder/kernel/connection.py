"""The kernel's end of the judge.

While grading, the judge is another process; this kernel inherited one end of a socket
to it, whose number is in ``AUTOGRADER_JUDGE_FD``. Requests and replies are JSON lines
(``wire.framing``): the kernel asks for scenarios and reports what the student's function
did on each. A value check (an answer, not a function) asks nothing while grading: the
grader committed the answer before the test cell ran, and the judge decides it.

Without a judge (a student working on their own), the judges themselves play its part in
this process (``judges.local``), with the public seeds, so the feedback is the same. That
is the one place the kernel's code imports a judge, and only then: a grading kernel never
does.
"""
from __future__ import annotations

import os
import secrets
import socket
import threading

from ..wire import framing
from ..wire.spec import Exercise
from ..wire.verdict import Verdict

ENV_FD = "AUTOGRADER_JUDGE_FD"
MAX_REPLY = 64 * 2 ** 20  # the judge's replies (scenarios) are the judge's: bounded, trusted


class JudgeUnavailable(Exception):
    pass


class RemoteJudge:
    """The grader's judge process, over the socket this kernel inherited."""

    def __init__(self, fd: int):
        self._sock = socket.socket(fileno=fd)
        self._lines = framing.Lines(self._sock, MAX_REPLY)
        self._lock = threading.Lock()

    def _ask(self, request: dict) -> dict:
        """Send a request and wait for the reply that carries its id: replies to anything
        else written to this socket (by the student's code, say) are skipped."""
        request_id = secrets.token_hex(8)
        with self._lock:
            try:
                framing.send(self._sock, {**request, "id": request_id})
                while True:
                    try:
                        data = self._lines.message()
                    except ValueError:
                        continue
                    if data is None:
                        raise JudgeUnavailable("the judge closed the connection")
                    if isinstance(data, dict) and data.get("id") == request_id:
                        return data
            except OSError as exc:
                raise JudgeUnavailable(str(exc)) from None

    def scenarios(self, spec: Exercise, cases: str) -> list:
        reply = self._ask({"op": "scenarios", "check": spec.check, "cases": cases})
        if "scenarios" not in reply:
            raise JudgeUnavailable(reply.get("error", "no scenarios"))
        return [(item["token"], item["data"]) for item in reply["scenarios"]]

    def report(self, token: str, observation: dict) -> Verdict:
        return Verdict.from_data(self._ask({"op": "report", "token": token, "observation": observation}))

    def commit(self, values: dict) -> None:
        self._ask({"op": "commit", "values": values})

    def value(self, spec: Exercise, answer, cases: str, **options) -> None:
        """While grading, a value check's verdict is the judge's, from the committed answer."""
        return None

    def parts(self, spec: Exercise, answer, cases: str, **options) -> None:
        """While grading, no part of an answer is judged in the kernel."""
        return None

    def variant(self, question: str) -> dict | None:
        """The submitting student's variant of a question, as the judge draws it (never its key)."""
        reply = self._ask({"op": "variant", "question": question})
        return reply.get("variant") if isinstance(reply.get("variant"), dict) else None

    def self_study(self) -> bool:
        return False


_judge = None


def judge():
    """The judge this kernel talks to (created on first use)."""
    global _judge
    if _judge is None:
        fd = os.environ.get(ENV_FD)
        if fd and fd.isdigit():
            _judge = RemoteJudge(int(fd))
        else:  # a student working alone: the judges run here (see the module's docstring)
            from ..judges.local import LocalJudge

            _judge = LocalJudge()
    return _judge
