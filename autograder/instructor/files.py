"""Copying files the student controls without trusting them.

A submission's folder is student data: it may hold links (to the instructor's source
notebook, to a classmate's folder), special files (a FIFO blocks whoever opens it),
thousands of small files or a few huge ones, folders nested a thousand deep (Python 3.11's
``os.walk`` and ``Path.rglob`` recurse once a level and raise ``RecursionError`` past about
a thousand), names that are not UTF-8 or hold newlines, entries that vanish or change while
they are read. Everything here walks such a folder with ``Walk``: without recursion, each
folder opened (``O_NOFOLLOW``) relative to the folder that listed it, within a bound on
depth, entries and path length, and it says what it did not look at instead of raising.
Only regular files and folders are copied, never through a link, and a budget bounds how
many files and bytes are taken. The same walk reads a folder into data (``read_regular``: a
submission sent to another machine) and ``write_tree`` puts such data back as a folder (its
graded files coming back).
"""
from __future__ import annotations

import os
import pwd
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILES = 500
MAX_BYTES = 50 * 2 ** 20
# A submitted notebook larger than this is not parsed (an honest lesson notebook, outputs and
# plots included, is under 2 MB; nbformat needs several times a file's size in memory).
MAX_NOTEBOOK_BYTES = 40 * 2 ** 20
# What one walk of a student's folder looks at: an honest submission is a notebook or two,
# perhaps a data folder (a few entries, two levels); these bound the walk's time (2 000 files:
# 39 ms, 2 000 empty folders: 170 ms, measured with both cores of a 2-core machine busy), its
# open descriptors (one a level) and the length of every path it makes.
MAX_DEPTH = 16  # folders within folders
MAX_ENTRIES = 2000  # entries listed, in all its folders
MAX_PATH = 1024  # characters of an entry's path beneath the walked folder


TOO_LARGE = "larger than the limit for one file"  # why a file over ``max_file`` was skipped
OVER_BUDGET = "over the size budget"  # why a file past the files' or bytes' budget was skipped
TOO_DEEP = f"folders nested more than {MAX_DEPTH} deep: not looked into"
TOO_MANY = f"more than {MAX_ENTRIES} entries in the folder: the rest not looked at"
TOO_LONG = f"its path is longer than {MAX_PATH} characters: not looked at"


@dataclass(eq=False)
class Entry:
    """One entry beneath a walked folder. ``info`` is its ``lstat``, a folder's the ``fstat``
    of the descriptor the walk opened it with (``fd``); ``folder`` is the open folder that
    holds it. Both descriptors are valid only until the walk moves on. A caller that does
    not want a folder walked sets ``enter`` to False."""
    relative: str  # its path beneath the walked folder
    name: str
    folder: int
    info: os.stat_result
    depth: int  # 0: in the walked folder itself
    fd: int | None = None
    enter: bool = True


class Walk:
    """The entries beneath ``top``, without recursion and never through a link: in each
    folder its other entries first (notebooks before anything else), sorted by name, then its
    folders one by one, depth first (one open descriptor a level). What it does not look at
    is listed in ``cut`` as ``(relative path, why)``: what lies deeper than ``max_depth``, a
    path longer than ``MAX_PATH``, everything past ``max_entries`` listed entries
    (``stopped``; the notebooks of the top itself are looked at all the same, as nbgrader
    grades those), a folder it cannot open or list, an entry that vanished. ``changed`` is
    the newest change time (``ctime``) of everything it saw, each folder's taken before and
    after its listing."""

    def __init__(self, top, max_depth: int = MAX_DEPTH, max_entries: int = MAX_ENTRIES):
        self.top, self.max_depth, self.max_entries = top, max_depth, max_entries
        self.cut: list = []
        self.stopped = False
        self.info: os.stat_result | None = None  # the walked folder's own
        self.changed = 0.0
        self.listed = 0

    @property
    def complete(self) -> bool:
        return not self.cut

    def _saw(self, info: os.stat_result) -> os.stat_result:
        self.changed = max(self.changed, info.st_ctime)
        return info

    def __iter__(self):
        try:
            top = os.open(self.top, _DIRECTORY)
        except OSError as exc:
            self.cut.append((".", str(exc)))
            return
        stack = [[top, "", 0, None]]  # open folder, its path, its entries' depth, its folders left
        inner = None  # a folder opened and yielded, not yet entered
        try:
            self.info = self._saw(os.fstat(top))
            while stack:
                frame = stack[-1]
                fd, relative, depth, folders = frame
                if folders is None:
                    found = []
                    for entry in self._entries(fd, relative, depth):
                        if stat.S_ISDIR(entry.info.st_mode):
                            found.append(entry)
                        else:
                            yield entry
                    frame[3] = iter(found)
                    continue
                entry = next(folders, None)
                if entry is None:
                    stack.pop()
                    os.close(fd)
                    continue
                try:
                    inner = os.open(entry.name, _DIRECTORY, dir_fd=fd)
                    entry.info = self._saw(os.fstat(inner))
                except OSError as exc:  # vanished, or swapped for a link or a file since listed
                    self.cut.append((entry.relative, str(exc)))
                    if inner is not None:
                        os.close(inner)
                        inner = None
                    continue
                entry.fd = inner
                yield entry
                if entry.enter and self._may_enter(entry, inner):
                    stack.append([inner, entry.relative, depth + 1, None])
                else:
                    os.close(inner)
                inner = entry.fd = None
        finally:
            if inner is not None:
                os.close(inner)
            for frame in stack:
                os.close(frame[0])

    def _may_enter(self, entry: Entry, fd: int) -> bool:
        if self.stopped:
            self.cut.append((entry.relative, TOO_MANY))
            return False
        if entry.depth + 1 > self.max_depth:
            try:
                with os.scandir(fd) as listing:
                    empty = next(listing, None) is None
            except OSError as exc:
                self.cut.append((entry.relative, str(exc)))
                return False
            if not empty:
                self.cut.append((entry.relative, TOO_DEEP))
            return False
        return True

    def _entries(self, fd: int, relative: str, depth: int):
        """The entries of one open folder, within what is left of the budget."""
        names = []
        left = self.max_entries - self.listed
        try:
            with os.scandir(fd) as listing:
                for item in listing:
                    if len(names) < left:
                        names.append(item.name)
                        continue
                    if not self.stopped:
                        self.stopped = True
                        self.cut.append((relative or ".", TOO_MANY))
                    if depth:
                        break
                    if item.name.endswith(".ipynb") and len(names) < left + self.max_entries:
                        names.append(item.name)  # the notebooks of the top are looked at whatever else is there
            self._saw(os.fstat(fd))
        except OSError as exc:
            self.cut.append((relative or ".", str(exc)))
        self.listed += len(names)
        names.sort(key=lambda name: (not name.endswith(".ipynb"), name))
        for name in names:
            path = os.path.join(relative, name)
            if len(path) > MAX_PATH:
                self.cut.append((path, TOO_LONG))
                continue
            try:
                info = self._saw(os.stat(name, dir_fd=fd, follow_symlinks=False))
            except OSError as exc:
                self.cut.append((path, str(exc)))
                continue
            yield Entry(path, name, fd, info, depth)


@dataclass
class Copied:
    files: int = 0
    bytes: int = 0
    skipped: list = field(default_factory=list)  # (relative path, why)
    cut: list = field(default_factory=list)  # what the walk did not look at (``Walk.cut``), also in skipped
    changed: float = 0.0  # the newest ctime of what was seen, each file's taken after it was read
    refused: str = ""  # why nothing was taken: the folder itself is not the owner's


def not_owned(uid: int, owner: int) -> str:
    return f"owned by {user_name(uid)}, not by the folder's owner {user_name(owner)}"


def user_name(uid: int) -> str:
    try:
        return repr(pwd.getpwuid(uid).pw_name)
    except KeyError:
        return f"uid {uid}"


class NotOwned(OSError):
    """A file (opened, so seen as it really is) that belongs to someone other than the folder's owner."""


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def _open_regular(name: str, folder: int, owner: int | None = None) -> int:
    """A regular file's descriptor, opened relative to the open ``folder``, never through a
    link; with ``owner``, only a file that uid owns (checked on the descriptor: a file
    swapped in between the listing and the open is seen as it is)."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):  # replaced between lstat and open
        os.close(fd)
        raise OSError("not a regular file")
    if owner is not None and info.st_uid != owner:
        os.close(fd)
        raise NotOwned(not_owned(info.st_uid, owner))
    return fd


def _chunks(fd: int, size: int):
    left = size
    while left > 0:
        chunk = os.read(fd, min(left, 2 ** 20))
        if not chunk:
            return
        yield chunk
        left -= len(chunk)


def _copy_file(name: str, folder: int, target: str, size: int, owner: int | None = None) -> float:
    """Copy one file; its ctime once read (a change while it was read is seen)."""
    fd = _open_regular(name, folder, owner)
    try:
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            for chunk in _chunks(fd, size):
                os.write(out, chunk)
        finally:
            os.close(out)
        return os.fstat(fd).st_ctime
    finally:
        os.close(fd)


def _read_file(name: str, folder: int, size: int) -> bytes:
    fd = _open_regular(name, folder)
    try:
        return b"".join(_chunks(fd, size))
    finally:
        os.close(fd)


def _walk(source: Path, copied: Copied, skip, max_files: int, max_bytes: int, on_folder, on_file,
          max_file: int | None = None, owner: int | None = None) -> None:
    """Visit the regular files and folders beneath ``source`` (``Walk``) within the budget;
    everything else is listed in ``copied.skipped``, with why.

    Each folder is opened (``O_NOFOLLOW``) relative to the folder that listed it, and its
    files relative to it: a student who swaps a folder for a link while it is copied (their
    exchange folder is theirs to change) gets an error for that entry, not the link's target.
    A file larger than ``max_file`` bytes is skipped on its own, without spending the budget.
    With ``owner`` (a uid), only what that user owns is taken: the folder itself (else
    nothing: ``copied.refused``), each folder in it and each file, checked on the open
    descriptor. ``on_file(name, folder_fd, entry_name, info)`` returns the file's ctime once
    read, or None."""
    walk = Walk(source)
    for entry in walk:
        if owner is not None and walk.info.st_uid != owner:
            copied.refused = not_owned(walk.info.st_uid, owner)
            break
        name, info = entry.relative, entry.info
        if skip(name):
            entry.enter = False
            continue
        if owner is not None and info.st_uid != owner and stat.S_ISDIR(info.st_mode):
            copied.skipped.append((name, not_owned(info.st_uid, owner)))
            entry.enter = False
        elif stat.S_ISDIR(info.st_mode):
            try:
                on_folder(name)
            except OSError as exc:
                copied.skipped.append((name, str(exc)))
                entry.enter = False
        elif not stat.S_ISREG(info.st_mode):
            copied.skipped.append((name, "link" if stat.S_ISLNK(info.st_mode) else "special file"))
        elif max_file is not None and info.st_size > max_file:
            copied.skipped.append((name, TOO_LARGE))
        elif copied.files >= max_files or copied.bytes + info.st_size > max_bytes:
            copied.skipped.append((name, OVER_BUDGET))
        else:
            try:
                changed = on_file(name, entry.folder, entry.name, info)
            except OSError as exc:
                copied.skipped.append((name, str(exc)))
                continue
            copied.files += 1
            copied.bytes += info.st_size
            copied.changed = max(copied.changed, changed or 0.0)
    if walk.info is not None and owner is not None and walk.info.st_uid != owner:
        copied.refused = not_owned(walk.info.st_uid, owner)
    copied.cut = list(walk.cut)
    copied.skipped.extend(walk.cut)
    copied.changed = max(copied.changed, walk.changed)


def copy_regular(source: Path, target: Path, skip=lambda name: False, max_files: int = MAX_FILES,
                 max_bytes: int = MAX_BYTES, max_file: int | None = None, owner: int | None = None) -> Copied:
    """Copy the regular files and folders beneath ``source`` into ``target`` (which must
    exist), within the budget; links, special files, files over ``max_file`` bytes and (with
    ``owner``) what that uid does not own are listed as skipped."""
    copied = Copied()
    _walk(source, copied, skip, max_files, max_bytes, max_file=max_file, owner=owner,
          on_folder=lambda name: os.mkdir(os.path.join(target, name), 0o700),
          on_file=lambda name, folder, entry, info: _copy_file(entry, folder, os.path.join(target, name),
                                                               info.st_size, owner))
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
