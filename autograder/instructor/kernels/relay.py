"""A kernel's bytes, counted before ZeroMQ keeps them: a relay between the grader's socket and the kernel's.

ZeroMQ hands a multipart message to the grader only once all its frames have arrived, and
keeps them all in the grading process's memory until then: ``MAXMSGSIZE`` bounds a frame, not
the number of frames. A kernel holds its own ZeroMQ sockets and can send one buffer as the
same frame again and again without copying it: five messages of 250 frames of 4 MB, sent from
4 MB of the kernel's memory, took the grading process from 292 MB to 1.3 GB, and nothing
bounded the number of frames. So the grader's shell and IOPub sockets connect to a ``Relay``,
which connects to the kernel's socket and passes bytes both ways, counting what the kernel
sends as it arrives: past ``MAX_KERNEL_BYTES`` it stops passing them on and ends the kernel
(``on_flood``), which then costs its cell, like a kernel that used too much memory. Nothing of
one kernel's can then wait in the grading process beyond that.

An honest lesson notebook's kernel sends 170-240 kB in all, a kernel that prints in a loop
without end a few MB a second; the relay adds one pass through a thread per message (~275 per
lesson notebook: ~20 ms of the grading process's CPU, less than ``protocol`` saves by reading
messages itself). Its listening socket lies in the notebook's kernel folder, beside the
kernel's socket folder, where the kernel (which sees only that socket folder) cannot reach it.
"""
from __future__ import annotations

import itertools
import os
import socket
import threading
import time
from typing import Callable

from ..server_process import listen

MAX_KERNEL_BYTES = 64 * 2 ** 20  # bytes one kernel may send the grader in all
CHUNK = 2 ** 16
# A kernel binds its sockets a few tens of milliseconds after the grader connects: the relay holds
# the grader's connection and tries the kernel's socket again every RETRY seconds (closing the
# grader's connection instead made ZeroMQ connect again and again: 15 ms of the grader's CPU a
# notebook), for at most WAIT seconds.
RETRY = 0.005
WAIT = 120
_names = itertools.count(1)


class Relay:
    """Passes one channel's bytes between the grader's ZeroMQ socket (which connects to
    ``path``) and the kernel's socket at ``kernel_path``; ``sent`` (shared by the channels of
    one kernel) counts what the kernel sends, and ``on_flood`` is called once it passes
    ``MAX_KERNEL_BYTES``."""

    def __init__(self, kernel_path: str, folder: str, channel: str, sent: Counter):
        self.kernel_path = kernel_path
        self.path = os.path.join(folder, f"r{channel[0]}{next(_names)}")  # (as short as a kernel's socket)
        self.sent = sent
        self._server = listen(self.path, 4)
        self._lock = threading.Lock()
        self._open: list = []
        self._closed = False
        threading.Thread(target=self._accept, name=f"relay-{channel}", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                grader, _ = self._server.accept()
            except OSError:
                return  # closed
            kernel = self._connect()
            if kernel is None:
                grader.close()
                continue
            with self._lock:
                if self._closed:
                    grader.close()
                    kernel.close()
                    return
                self._open += [grader, kernel]
            threading.Thread(target=self._pass, args=(kernel, grader, True), daemon=True).start()
            threading.Thread(target=self._pass, args=(grader, kernel, False), daemon=True).start()

    def _connect(self) -> socket.socket | None:
        """A connection to the kernel's socket, once the kernel has bound it (None: it did not
        within ``WAIT`` seconds, or the relay was closed)."""
        deadline = time.monotonic() + WAIT
        while not self._closed and time.monotonic() < deadline:
            kernel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                kernel.connect(self.kernel_path)
                return kernel
            except OSError:
                kernel.close()
                time.sleep(RETRY)
        return None

    def _pass(self, source: socket.socket, target: socket.socket, from_kernel: bool) -> None:
        try:
            while data := source.recv(CHUNK):
                if from_kernel and not self.sent.add(len(data)):
                    self.close()
                    return
                target.sendall(data)
        except OSError:
            pass
        for sock in (source, target):  # the other direction ends with it
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        """Stop relaying: the listening socket and every connection are closed."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            sockets, self._open = [self._server, *self._open], []
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        try:
            os.unlink(self.path)
        except OSError:
            pass


class Counter:
    """Bytes one kernel sent, over all its channels; ``on_flood`` runs once they pass the limit."""

    def __init__(self, on_flood: Callable[[], None], limit: int = MAX_KERNEL_BYTES):
        self.limit = limit
        self.on_flood = on_flood
        self.total = 0
        self.flooded = False
        self._lock = threading.Lock()

    def add(self, size: int) -> bool:
        """Count ``size`` bytes; False once past the limit."""
        with self._lock:
            self.total += size
            if self.total <= self.limit:
                return True
            first, self.flooded = not self.flooded, True
        if first:
            self.on_flood()
        return False
