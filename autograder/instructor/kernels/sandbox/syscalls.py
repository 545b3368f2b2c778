"""Calling the Linux system calls the sandbox needs, from Python, through libc."""
from __future__ import annotations

import ctypes
import os
import platform

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

MACHINE = platform.machine()
# syscall numbers that differ between the two architectures these machines come in
NUMBERS = {
    "x86_64": dict(landlock_create_ruleset=444, landlock_add_rule=445, landlock_restrict_self=446,
                   seccomp=317, capset=126),
    "aarch64": dict(landlock_create_ruleset=444, landlock_add_rule=445, landlock_restrict_self=446,
                    seccomp=277, capset=91),
}


class Unsupported(OSError):
    """The machine cannot do what the sandbox needs."""


def syscall(name: str, *args) -> int:
    if MACHINE not in NUMBERS:
        raise Unsupported(f"no system call table for {MACHINE}")
    result = libc.syscall(NUMBERS[MACHINE][name], *args)
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{name}: {os.strerror(error)}")
    return result


def check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NAME = 15  # its value: the process's name (bytes, at most 15), what ps and top show


def prctl(option: int, value: int | bytes) -> None:
    check(libc.prctl(option, value, 0, 0, 0), "prctl")


PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4


def drop_capabilities() -> None:
    """Give up every capability, for good: the bounding and ambient sets emptied, then the
    effective, permitted and inheritable sets (those a process has in its own user
    namespace included). Capabilities are per thread: call it while the process has one
    thread, and every thread it starts later has none either."""
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            last = int(f.read())
    except (OSError, ValueError):
        last = 63
    for capability in range(last + 1):
        try:
            prctl(PR_CAPBSET_DROP, capability)
        except OSError:  # not held in the bounding set, or unknown to this Linux
            pass
    try:
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    except OSError:  # Linux before 4.3: no ambient set
        pass
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable × 2 words, all empty
    syscall("capset", header, data)
