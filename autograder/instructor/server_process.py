"""The servers' listening sockets: a Unix socket that appears at its path only once it accepts
connections, so a client that finds the path can connect at once (it waits for the path)."""
from __future__ import annotations

import os
import socket


def listen(path: str, backlog: int) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path + ".tmp")
    server.listen(backlog)
    os.rename(path + ".tmp", path)
    return server
