"""The kernel's end of the judge.

While grading, the judge is another process; this kernel inherited one end of a socket
to it, whose number is in ``AUTOGRADER_JUDGE_FD``. Requests and replies are JSON lines:
the kernel asks for scenarios and reports what the student's function did on each.
Without a judge (a student working on their own), ``LocalJudge`` plays its part in
this process with the same judges and the public seeds, so the feedback is the same.
"""
from __future__ import annotations

import json
import os
import secrets
import socket
import threading

from ..judges import CheckSpec, select
from ..judges.verdict import Verdict

ENV_FD = "AUTOGRADER_JUDGE_FD"
MAX_LINE = 64 * 2 ** 20


class JudgeUnavailable(Exception):
    pass


class LocalJudge:
    """Scenarios from the public seeds and verdicts from the judges, in this process."""

    def __init__(self):
        self._issued: dict = {}

    def scenarios(self, spec: CheckSpec, cases: str) -> list:
        module = spec.module()
        issued = []
        for spec_case in select(module.CASES, cases):
            token = str(len(self._issued))
            data = module.scenario(spec_case, spec_case["seed"])
            self._issued[token] = (module, data)
            issued.append((token, data))
        return issued

    def report(self, token: str, observation: dict) -> Verdict:
        module, data = self._issued.pop(token)
        return module.verify(data, observation)


class RemoteJudge:
    """The grader's judge process, over the socket this kernel inherited."""

    def __init__(self, fd: int):
        self._sock = socket.socket(fileno=fd)
        self._file = self._sock.makefile("rb")
        self._lock = threading.Lock()

    def _ask(self, request: dict) -> dict:
        """Send a request and wait for the reply that carries its id: replies to anything
        else written to this socket (by the student's code, say) are skipped."""
        request_id = secrets.token_hex(8)
        line = (json.dumps({**request, "id": request_id}) + "\n").encode()
        with self._lock:
            try:
                self._sock.sendall(line)
                while True:
                    reply = self._file.readline(MAX_LINE)
                    if not reply:
                        raise JudgeUnavailable("the judge closed the connection")
                    try:
                        data = json.loads(reply)
                    except ValueError:
                        continue
                    if isinstance(data, dict) and data.get("id") == request_id:
                        return data
            except OSError as exc:
                raise JudgeUnavailable(str(exc)) from None

    def scenarios(self, spec: CheckSpec, cases: str) -> list:
        reply = self._ask({"op": "scenarios", "check": spec.function, "cases": cases})
        if "scenarios" not in reply:
            raise JudgeUnavailable(reply.get("error", "no scenarios"))
        return [(item["token"], item["data"]) for item in reply["scenarios"]]

    def report(self, token: str, observation: dict) -> Verdict:
        return Verdict.from_data(self._ask({"op": "report", "token": token, "observation": observation}))

    def commit(self, values: dict) -> None:
        self._ask({"op": "commit", "values": values})


_judge = None


def judge():
    """The judge this kernel talks to (created on first use)."""
    global _judge
    if _judge is None:
        fd = os.environ.get(ENV_FD)
        _judge = RemoteJudge(int(fd)) if fd and fd.isdigit() else LocalJudge()
    return _judge
