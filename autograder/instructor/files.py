"""Copying files the student controls without trusting them.

A submission's folder is student data: it may hold links (to the instructor's source
notebook, to a classmate's folder), special files (a FIFO blocks whoever opens it),
thousands of small files or a few huge ones. Everything here looks at a file with
``lstat`` and opens it with ``O_NOFOLLOW``: only regular files and folders are copied,
never through a link, and a budget bounds how many files and bytes are taken.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILES = 500
MAX_BYTES = 50 * 2 ** 20


@dataclass
class Copied:
    files: int = 0
    bytes: int = 0
    skipped: list = field(default_factory=list)  # (relative path, why)


def _copy_file(source: str, target: str, size: int) -> None:
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between lstat and open
            raise OSError("not a regular file")
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            left = size
            while left > 0:
                chunk = os.read(fd, min(left, 2 ** 20))
                if not chunk:
                    break
                os.write(out, chunk)
                left -= len(chunk)
        finally:
            os.close(out)
    finally:
        os.close(fd)


def copy_regular(source: Path, target: Path, skip=lambda name: False, max_files: int = MAX_FILES,
                 max_bytes: int = MAX_BYTES) -> Copied:
    """Copy the regular files and folders beneath ``source`` into ``target`` (which must
    exist), within the budget; links and special files are listed as skipped."""
    copied = Copied()
    stack = [("", str(source), str(target))]
    while stack:
        relative, here, there = stack.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError as exc:
            copied.skipped.append((relative or ".", str(exc)))
            continue
        for entry in entries:
            name = os.path.join(relative, entry.name)
            if skip(name):
                continue
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                os.mkdir(os.path.join(there, entry.name), 0o700)
                stack.append((name, entry.path, os.path.join(there, entry.name)))
            elif not stat.S_ISREG(info.st_mode):
                copied.skipped.append((name, "link" if stat.S_ISLNK(info.st_mode) else "special file"))
            elif copied.files >= max_files or copied.bytes + info.st_size > max_bytes:
                copied.skipped.append((name, "over the size budget"))
            else:
                try:
                    _copy_file(entry.path, os.path.join(there, entry.name), info.st_size)
                except OSError as exc:
                    copied.skipped.append((name, str(exc)))
                    continue
                copied.files += 1
                copied.bytes += info.st_size
    return copied


def unsafe_entries(folder: Path) -> list:
    """Links and special files beneath ``folder`` (found without following any link)."""
    found = []
    for here, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(here, name)
            mode = os.lstat(path).st_mode
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                found.append(Path(path))
    return found
