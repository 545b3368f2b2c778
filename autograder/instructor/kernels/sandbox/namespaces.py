"""Linux namespaces for a grading kernel: its own users, network, processes, mounts, IPC.

In a new network namespace there is no network at all (not even a working loopback).
In a new PID namespace the kernel is process 1: it cannot see or signal any process
outside, and when it ends the operating system kills everything it started. A new
mount namespace lets it have its own /proc (showing only its own processes) and a
private, size-limited tmpfs as its working folder, invisible to everyone else.
"""
from __future__ import annotations

import os

from .syscalls import check, libc

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
ALL = CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS

MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 0x4000, 1 << 18


def unshare_all() -> None:
    """Enter new namespaces, mapping this process's user and group to root inside
    (which owns the new namespaces, and nothing outside them). The process must be
    single-threaded; the new PID namespace applies to the children it forks next."""
    uid, gid = os.getuid(), os.getgid()
    check(libc.unshare(ALL), "unshare")
    with open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write(f"0 {uid} 1")
    with open("/proc/self/gid_map", "w") as f:
        f.write(f"0 {gid} 1")


def _mount(source: str, target: str, kind: str | None, flags: int, data: str | None = None) -> None:
    check(libc.mount(source.encode(), target.encode(), kind.encode() if kind else None, flags,
                     data.encode() if data else None), f"mount {target}")


def private_mounts() -> None:
    """Mounts made from now on stay inside this mount namespace."""
    _mount("none", "/", None, MS_REC | MS_PRIVATE)


def own_proc() -> None:
    """A /proc that shows only this PID namespace (call as its process 1)."""
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


def tmpfs(target: str, size_mb: int) -> None:
    """A private in-memory folder of at most ``size_mb`` MB at ``target``."""
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size_mb}m,mode=0700")
