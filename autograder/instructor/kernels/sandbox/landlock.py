"""Landlock: the kernel (the operating system's) rules for what a process may touch.

Once a process restricts itself, it and every thread and process it creates may only
read the paths it listed as readable, write beneath the paths it listed as writable,
make TCP connections to none (ABI 4), and (ABI 6) neither signal nor reach an abstract
Unix socket of any process outside its sandbox. Nothing can lift the restriction.
Everything is checked by Linux, not by Python: ``ctypes`` or a C extension changes
nothing. Which of these rules apply depends on the machine's Landlock ABI (``abi()``);
the README's sandbox table says which each rule needs.
"""
from __future__ import annotations

import ctypes
import os
import struct

from .syscalls import PR_SET_NO_NEW_PRIVS, prctl, syscall

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG = 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8
MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15  # ABI 2, 3 and 5
FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # the rights a rule on a file may carry
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

READ = EXECUTE | READ_FILE | READ_DIR
RULE_PATH_BENEATH = 1


def abi() -> int:
    """The Landlock ABI version the running kernel offers (0: none)."""
    try:
        return syscall("landlock_create_ruleset", None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    except OSError:
        return 0


def _handled_fs(version: int) -> int:
    rights = (1 << 13) - 1
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    if version >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict(rules: list) -> int:
    """Allow only ``rules`` = [(path, rights)], for this process and everything it starts.
    Paths that do not exist are skipped. Returns the ABI version used."""
    version = abi()
    if version < 1:
        raise OSError("Landlock is not available")
    handled = _handled_fs(version)
    net = NET_BIND_TCP | NET_CONNECT_TCP if version >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if version >= 6 else 0
    attr = struct.pack("QQQ", handled, net, scoped)[: 8 if version < 4 else 16 if version < 6 else 24]
    ruleset = syscall("landlock_create_ruleset", ctypes.create_string_buffer(attr), len(attr), 0)
    try:
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            try:
                if not os.path.isdir(path):
                    rights &= FILE_ONLY
                rule = struct.pack("=Qi", rights & handled, fd)
                syscall("landlock_add_rule", ruleset, RULE_PATH_BENEATH, ctypes.create_string_buffer(rule), 0)
            finally:
                os.close(fd)
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        syscall("landlock_restrict_self", ruleset, 0)
    finally:
        os.close(ruleset)
    return version
