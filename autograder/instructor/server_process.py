"""What each server of a grading run does for itself, the judge's and the fork server's alike:
listen on a Unix socket that appears at its path only once it accepts connections (so a client
that finds the path can connect at once: it waits for the path; a kernel's relay listens so
too), and end when the process that started it ends.

Both ``judging`` and ``kernels`` import it, and so neither imports the other for it: the judge
stands alone below the kernels' services, which start it.
"""
from __future__ import annotations

import ctypes
import os
import socket

PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)


def listen(path: str, backlog: int) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path + ".tmp")
    server.listen(backlog)
    os.rename(path + ".tmp", path)
    return server


def die_with_parent(signum: int, parent: int) -> None:
    """Have Linux send ``signum`` to this process when ``parent`` (the process that started
    it) ends: a grading process that is killed must not leave its judge, its fork server
    and their kernels running."""
    if not parent:
        return
    if _libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"prctl: {os.strerror(error)}")
    if os.getppid() != parent:  # it ended before the line above took effect
        os.kill(os.getpid(), signum)
