"""One framing for every socket of the system: a message is one line of JSON.

Kernel and judge (a conversation: requests carry an ``id`` their replies echo), the grader
and the judge, the grader and the fork server (one request per connection, with a file
descriptor attached where one travels), the coordinator and its workers: all send
``dumps(message)`` and read with a ``Lines`` reader that never takes more than ``limit``
bytes for a line (a longer one is skipped to its end and reported as ``TooLong``), so
whoever writes to a socket can cost its reader one bounded line at a time, never its
memory. JSON only, never pickle: a message is data, whatever sent it.
"""
from __future__ import annotations

import json
import socket
import threading

MAX_LINE = 2 ** 20


class TooLong(ValueError):
    """A line longer than the reader's limit (it was read to its end and dropped)."""


class Spent(ValueError):
    """The reader's budget of bytes is spent (mid-line, perhaps: it reads no further)."""


class Allowance:
    """Bytes that one or more readers may take in all: the judge gives every kernel connection
    of one notebook the notebook's one allowance (a kernel restarted again and again gets a
    new connection each time, never a new allowance)."""

    def __init__(self, total: float = float("inf")):
        self.total = total
        self.taken = 0
        self._lock = threading.Lock()

    def take(self, size: int) -> None:
        with self._lock:
            self.taken += size

    @property
    def spent(self) -> bool:
        return self.taken > self.total


def dumps(message) -> bytes:
    return (json.dumps(message) + "\n").encode()


def loads(line: bytes):
    """A message from one line (``ValueError`` if it is not JSON, or nested past what Python's
    parser takes: ``[`` a hundred thousand times raised ``RecursionError``)."""
    try:
        return json.loads(line)
    except RecursionError:
        raise ValueError("JSON nested too deep") from None


def send(sock: socket.socket, message, fds: tuple = ()) -> None:
    """Write one message, with ``fds`` attached (SCM_RIGHTS) if any."""
    data = dumps(message)
    if fds:
        sent = socket.send_fds(sock, [data], list(fds))
        data = data[sent:]
    if data:
        sock.sendall(data)


class Lines:
    """The messages arriving on a stream socket, a line at a time."""

    def __init__(self, sock: socket.socket, limit: int = MAX_LINE, budget: float | Allowance = float("inf")):
        self.limit = limit
        # bytes this reader takes in all, over-long lines included (shared, if an Allowance)
        self.allowance = budget if isinstance(budget, Allowance) else Allowance(budget)
        self._file = sock.makefile("rb")
        self.received = 0  # bytes this reader read so far

    def _read(self) -> bytes:
        if self.allowance.spent:
            raise Spent(f"more than {self.allowance.total} bytes received")
        chunk = self._file.readline(self.limit)
        self.received += len(chunk)
        self.allowance.take(len(chunk))
        return chunk

    def line(self) -> bytes:
        """The next line (b"" at the end of the stream); ``TooLong`` for one past the limit,
        ``Spent`` once the budget is spent (an over-long line is skipped only within it)."""
        line = self._read()
        if line and not line.endswith(b"\n"):
            while (more := self._read()) and not more.endswith(b"\n"):
                pass
            raise TooLong(f"a line longer than {self.limit} bytes")
        return line

    def message(self):
        """The next message; ``None`` at the end of the stream; ``ValueError`` (``TooLong``
        included) for a line that is not one."""
        line = self.line()
        return loads(line) if line else None


def receive(sock: socket.socket, limit: int = MAX_LINE, max_fds: int = 0):
    """(message, fds) of a connection that carries one message: the first line, with up to
    ``max_fds`` descriptors that came with its first bytes."""
    fds: list = []
    if max_fds:
        data, fds, _, _ = socket.recv_fds(sock, min(limit, 2 ** 16), max_fds)
    else:
        data = sock.recv(min(limit, 2 ** 16))
    while data and not data.endswith(b"\n") and len(data) < limit:
        more = sock.recv(min(limit - len(data), 2 ** 16))
        if not more:
            break
        data += more
    line = data.split(b"\n", 1)[0]
    if len(line) >= limit:
        raise TooLong(f"a message longer than {limit} bytes")
    return (loads(line) if line else None), fds
