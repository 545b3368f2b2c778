"""Limits applied to a grading kernel before any student code runs in it.

* memory: the address space may grow by at most ``memory_mb`` beyond what the
  pre-warmed kernel already maps (RLIMIT_AS), so an allocation of 50 GB fails with
  MemoryError in that cell instead of exhausting the machine;
* files: no single file over 200 MB (RLIMIT_FSIZE), no core dumps;
* network: an audit hook (which student code cannot remove) refuses socket
  connections other than Unix sockets, name look-ups, and starting programs.
  The kernel's own ZeroMQ sockets are opened in C and are not affected.

The working directory (the submission's own folder) is chosen by the caller.
"""
from __future__ import annotations

import resource
import socket
import sys

DEFAULT_MEMORY_MB = 2048
BLOCKED_EVENTS = {"socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr",
                  "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                  "os.fork", "os.forkpty", "pty.spawn"}


def limits_from_env(env: dict) -> dict:
    return {
        "memory_mb": int(env.get("AUTOGRADER_MEMORY_MB", DEFAULT_MEMORY_MB)),
        "network": env.get("AUTOGRADER_ALLOW_NETWORK", "") == "1",
    }


def _mapped_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _network_guard(event: str, args: tuple) -> None:
    if event == "socket.connect":
        sock = args[0]
        if getattr(sock, "family", None) != socket.AF_UNIX:
            raise PermissionError("network access is disabled while grading")
    elif event in BLOCKED_EVENTS:
        raise PermissionError(f"{event} is disabled while grading")


def apply(limits: dict) -> None:
    memory_mb = limits.get("memory_mb", DEFAULT_MEMORY_MB)
    if memory_mb:
        cap = _mapped_bytes() + memory_mb * 2 ** 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    resource.setrlimit(resource.RLIMIT_FSIZE, (200 * 2 ** 20, 200 * 2 ** 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if not limits.get("network"):
        sys.addaudithook(_network_guard)
