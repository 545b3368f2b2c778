"""The grader's side of the judge: start the judge process, open sessions, mark test cells.

One request per connection, a JSON line each way (``wire.framing``); a kernel's socket comes
back attached to the reply (``SCM_RIGHTS``).
"""
from __future__ import annotations

import socket

from ...wire import framing
from ...wire.verdict import Verdict


class JudgeError(Exception):
    pass


def request(path: str, message: dict, timeout: float = 60, with_fd: bool = False):
    """One request to the judge at ``path`` and its reply (and, ``with_fd``, the descriptor
    that came with it)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        try:
            s.connect(path)
            framing.send(s, message)
            data, fds = framing.receive(s, max_fds=1 if with_fd else 0)
        except OSError as exc:
            raise JudgeError(f"the judge did not answer: {exc}") from None
    if data is None:
        raise JudgeError("the judge closed the connection")
    if isinstance(data, dict) and "error" in data:
        raise JudgeError(data["error"])
    if with_fd:
        if not fds:
            raise JudgeError("the judge sent no socket")
        return data, fds[0]
    return data


class JudgeSession:
    """The judge's record of one notebook's run."""

    def __init__(self, path: str, assignment: str, notebook: str, student: str | None = None):
        self.path = path
        reply = request(path, {"op": "open", "assignment": assignment, "notebook": notebook, "student": student})
        self.id, self.cells = reply["session"], set(reply["cells"])

    def _ask(self, op: str, **fields):
        return request(self.path, {"op": op, "session": self.id, **fields})

    def kernel_socket(self) -> int:
        """A new socket for a kernel of this session (the caller owns the descriptor)."""
        _, fd = request(self.path, {"op": "channel", "session": self.id}, with_fd=True)
        return fd

    def begin(self, cell: str) -> list:
        """A test cell starts; returns the names its answers must be committed from."""
        return self._ask("begin", cell=cell)["commit"]

    def seal(self) -> None:
        self._ask("seal")

    def end(self, cell: str) -> Verdict | None:
        reply = self._ask("end", cell=cell)
        return None if reply.get("unjudged") else Verdict.from_data(reply)

    def verdicts(self) -> dict:
        return {cell: Verdict.from_data(v) for cell, v in self._ask("verdicts").items()}

    def close(self) -> None:
        try:
            self._ask("close")
        except JudgeError:
            pass
