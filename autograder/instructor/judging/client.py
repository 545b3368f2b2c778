"""The grader's side of the judge: start the judge process, open sessions, mark test cells.

One request per connection, JSON in and out; a kernel's socket comes back attached to
the reply (``SCM_RIGHTS``).
"""
from __future__ import annotations

import json
import socket

from ...wire.verdict import Verdict


class JudgeError(Exception):
    pass


def request(path: str, message: dict, timeout: float = 60, with_fd: bool = False):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        try:
            s.connect(path)
            s.sendall((json.dumps(message) + "\n").encode())
            if with_fd:
                data, fds, _, _ = socket.recv_fds(s, 4096, 1)
                if not fds:
                    raise JudgeError(data.decode(errors="replace"))
                return json.loads(data), fds[0]
            reply = s.makefile("rb").readline()
        except OSError as exc:
            raise JudgeError(f"the judge did not answer: {exc}") from None
    if not reply:
        raise JudgeError("the judge closed the connection")
    data = json.loads(reply)
    if isinstance(data, dict) and "error" in data:
        raise JudgeError(data["error"])
    return data


class JudgeSession:
    """The judge's record of one notebook's run."""

    def __init__(self, path: str, assignment: str, notebook: str):
        self.path = path
        reply = request(path, {"op": "open", "assignment": assignment, "notebook": notebook})
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
