"""Folders nested deeper than Python's recursion goes, made, walked and removed without it.

Python 3.11's ``os.walk``, ``Path.rglob`` and ``shutil.rmtree`` recurse once a level and raise
``RecursionError`` past about a thousand nested folders, and a path past 4 096 bytes cannot be
named at all: tests that submit such folders make them by descriptor (``chain``), look at
them with ``walk`` and, before they end, ``flatten`` them, because pytest removes old
temporary folders with ``shutil.rmtree`` (a chain left behind stops a later session, every
agent's on a shared machine).
"""
from __future__ import annotations

import os
from pathlib import Path


def chain(folder, names) -> int:
    """Folders ``names``, each in the one before, beneath ``folder``; the deepest one, open."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    for name in names:
        os.mkdir(name, dir_fd=fd)
        inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    return fd


def walk(top: Path):
    """``os.walk(top)`` without recursion: the same ``(folder, folders, other names)``,
    top-down, folders a caller removes from ``folders`` not entered, links never followed; a
    folder that cannot be listed, and an entry whose path is past what a path may hold
    (4 096 bytes), are passed over."""
    stack = [str(top)]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as listing:
                entries = [e for e in listing if len(os.fsencode(e.path)) < 4096]
        except OSError:
            continue
        dirs = [e.name for e in entries if e.is_dir()]
        yield here, dirs, [e.name for e in entries if not e.is_dir()]
        stack.extend(os.path.join(here, d) for d in reversed(dirs) if not os.path.islink(os.path.join(here, d)))


def flatten(top: Path, depth: int = 100) -> None:
    """Move every folder deeper than ``depth`` beneath ``top`` up into ``top/.zz-flattened/``,
    a level at a time (renames only), so that ``shutil.rmtree`` can remove ``top``."""
    top = Path(top)
    flat = top / ".zz-flattened"
    deep = [here for here, dirs, _ in walk(top)
            if len(Path(here).relative_to(top).parts) >= depth and not dirs.clear()]
    n = 0
    while deep:
        here = deep.pop()
        for name in os.listdir(here):
            path = os.path.join(here, name)
            if os.path.isdir(path) and not os.path.islink(path):
                flat.mkdir(exist_ok=True)
                n += 1
                os.rename(path, flat / str(n))
                deep.append(flat / str(n))
