"""Copying files the student controls without trusting them.

A submission's folder is student data: it may hold links (to the instructor's source
notebook, to a classmate's folder), special files (a FIFO blocks whoever opens it),
thousands of small files or a few huge ones. Everything here looks at a file with
``lstat`` and opens it with ``O_NOFOLLOW``: only regular files and folders are copied,
never through a link, and a budget bounds how many files and bytes are taken. The same
walk reads a folder into data (``read_regular``: a submission sent to another machine)
and ``write_tree`` puts such data back as a folder (its graded files coming back).
"""
from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILES = 500
MAX_BYTES = 50 * 2 ** 20
# A submitted notebook larger than this is not parsed (an honest lesson notebook, outputs and
# plots included, is under 2 MB; nbformat needs several times a file's size in memory).
MAX_NOTEBOOK_BYTES = 40 * 2 ** 20


TOO_LARGE = "larger than the limit for one file"  # why a file over ``max_file`` was skipped
OVER_BUDGET = "over the size budget"  # why a file past the files' or bytes' budget was skipped


@dataclass
class Copied:
    files: int = 0
    bytes: int = 0
    skipped: list = field(default_factory=list)  # (relative path, why)


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def _open_regular(name: str, folder: int) -> int:
    """A regular file's descriptor, opened relative to the open ``folder``, never through a link."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between lstat and open
        os.close(fd)
        raise OSError("not a regular file")
    return fd


def _chunks(fd: int, size: int):
    left = size
    while left > 0:
        chunk = os.read(fd, min(left, 2 ** 20))
        if not chunk:
            return
        yield chunk
        left -= len(chunk)


def _copy_file(name: str, folder: int, target: str, size: int) -> None:
    fd = _open_regular(name, folder)
    try:
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            for chunk in _chunks(fd, size):
                os.write(out, chunk)
        finally:
            os.close(out)
    finally:
        os.close(fd)


def _read_file(name: str, folder: int, size: int) -> bytes:
    fd = _open_regular(name, folder)
    try:
        return b"".join(_chunks(fd, size))
    finally:
        os.close(fd)


def _walk(source: Path, copied: Copied, skip, max_files: int, max_bytes: int, on_folder, on_file,
          max_file: int | None = None) -> None:
    """Visit the regular files and folders beneath ``source`` within the budget, never
    through a link; everything else is listed in ``copied.skipped``.

    Each folder is opened (``O_NOFOLLOW``) relative to the folder that listed it, and its
    files relative to it: a student who swaps a folder for a link while it is copied (their
    exchange folder is theirs to change) gets an error for that entry, not the link's target.
    A file larger than ``max_file`` bytes is skipped on its own, without spending the budget.
    ``on_file(name, folder_fd, entry_name, info)``."""
    try:
        top = os.open(source, _DIRECTORY)
    except OSError as exc:
        copied.skipped.append((".", str(exc)))
        return
    stack = [("", top)]
    try:
        _visit(stack, copied, skip, max_files, max_bytes, on_folder, on_file, max_file)
    finally:
        for _, fd in stack:  # left only when on_folder or on_file raised something else
            os.close(fd)


def _visit(stack: list, copied: Copied, skip, max_files: int, max_bytes: int, on_folder, on_file,
           max_file: int | None) -> None:
    while stack:
        relative, here = stack.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
            for entry in entries:
                name = os.path.join(relative, entry.name)
                if skip(name):
                    continue
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(info.st_mode):
                    try:
                        inner = os.open(entry.name, _DIRECTORY, dir_fd=here)
                    except OSError as exc:
                        copied.skipped.append((name, str(exc)))
                        continue
                    try:
                        on_folder(name)
                    except BaseException:
                        os.close(inner)
                        raise
                    stack.append((name, inner))
                elif not stat.S_ISREG(info.st_mode):
                    copied.skipped.append((name, "link" if stat.S_ISLNK(info.st_mode) else "special file"))
                elif max_file is not None and info.st_size > max_file:
                    copied.skipped.append((name, TOO_LARGE))
                elif copied.files >= max_files or copied.bytes + info.st_size > max_bytes:
                    copied.skipped.append((name, OVER_BUDGET))
                else:
                    try:
                        on_file(name, here, entry.name, info)
                    except OSError as exc:
                        copied.skipped.append((name, str(exc)))
                        continue
                    copied.files += 1
                    copied.bytes += info.st_size
        except OSError as exc:
            copied.skipped.append((relative or ".", str(exc)))
        finally:
            os.close(here)


def copy_regular(source: Path, target: Path, skip=lambda name: False, max_files: int = MAX_FILES,
                 max_bytes: int = MAX_BYTES, max_file: int | None = None) -> Copied:
    """Copy the regular files and folders beneath ``source`` into ``target`` (which must
    exist), within the budget; links, special files and files over ``max_file`` bytes are
    listed as skipped."""
    copied = Copied()
    _walk(source, copied, skip, max_files, max_bytes, max_file=max_file,
          on_folder=lambda name: os.mkdir(os.path.join(target, name), 0o700),
          on_file=lambda name, folder, entry, info: _copy_file(entry, folder, os.path.join(target, name),
                                                               info.st_size))
    return copied


def read_regular(source: Path, skip=lambda name: False, max_files: int = MAX_FILES,
                 max_bytes: int = MAX_BYTES) -> tuple[list, Copied]:
    """The regular files beneath ``source`` as data, ``[relative path, mode, bytes]`` each
    (sorted by path), within the budget, as ``copy_regular`` would copy them; a folder
    travels as the paths of its files."""
    copied = Copied()
    found: list = []
    _walk(source, copied, skip, max_files, max_bytes, on_folder=lambda name: None,
          on_file=lambda name, folder, entry, info: found.append(
              [Path(name).as_posix(), stat.S_IMODE(info.st_mode), _read_file(entry, folder, info.st_size)]))
    return sorted(found), copied


def _write_file(folder: Path, name: str, mode: int, data: bytes) -> None:
    parts = Path(name).parts
    if not parts or Path(name).is_absolute() or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"refused path {name!r}")
    for part in parts[:-1]:
        folder = folder / part
        if not folder.is_dir():
            folder.mkdir(0o755)
    fd = os.open(folder / parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fchmod(fd, mode & 0o777)
    finally:
        os.close(fd)


def write_tree(target: Path, found: list) -> None:
    """Make ``target`` hold exactly the files ``found`` (as ``read_regular`` gives them):
    written beside it first, then put in its place. A path that would leave ``target``
    is refused."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    incoming = target.parent / f".{target.name}.incoming"
    outgoing = target.parent / f".{target.name}.outgoing"
    for stale in (incoming, outgoing):  # left by a run that was interrupted here
        _remove(stale)
    incoming.mkdir(0o755)
    try:
        for name, mode, data in found:
            _write_file(incoming, name, mode, data)
    except BaseException:
        shutil.rmtree(incoming, ignore_errors=True)
        raise
    if target.exists() or target.is_symlink():
        os.rename(target, outgoing)
    os.rename(incoming, target)
    _remove(outgoing)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


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
