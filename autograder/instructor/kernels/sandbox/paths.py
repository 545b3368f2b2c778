"""What a grading kernel may read: the Python it runs on, and the few system files Python needs.

Worked out once, in the fork server after it has imported everything kernels use, from
what that process really loaded, so that any ordinary Python environment works (a
virtual environment, conda, ``PYTHONPATH``, ``.pth`` lines, editable installs, packages
that are symbolic links to another folder):

* every ``sys.path`` entry, links resolved (a ``.pth`` line is already in ``sys.path``);
* the folder of every module the server imported (editable installs live outside
  ``sys.path``), reduced to the outermost folders;
* wherever a symbolic link inside those folders leads (Landlock checks the resolved
  path, so a linked package needs its target readable);
* the folders of the shared libraries the process has mapped, and the system's library
  folders (an extension module imported later loads its libraries from there);
* a handful of files: the loader's cache, time zones, random devices, ``/dev/null``.

Never: a folder that holds a forbidden place (the course folder, the nbgrader exchange,
the instructor's home: granting ``/`` or ``$HOME`` would grant them) or lies inside one of
the course's nbgrader folders or the exchange. Not ``/usr`` as a whole (the exchange is
``/usr/local/share/nbgrader/exchange`` by default), ``/etc`` or ``/home``.
"""
from __future__ import annotations

import os
import sys

SYSTEM_FILES = ["/etc/ld.so.cache", "/etc/localtime", "/usr/share/zoneinfo", "/sys/devices/system/cpu",
                "/dev/urandom", "/dev/random", "/dev/zero", "/proc"]
LIBRARY_FOLDERS = ["/lib64", "/usr/lib64", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                   "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu"]
MAX_WALKED = 300_000  # entries looked at while looking for symbolic links (a large environment: ~60 000)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _outermost(paths) -> list:
    """The paths that are not inside another one of them."""
    kept: list = []
    for path in sorted(set(paths)):
        if not kept or not _inside(path, kept[-1]):
            kept.append(path)
    return kept


def python_folders() -> list:
    """``sys.path`` and the folders of every imported module, links resolved."""
    found = [os.path.realpath(p) for p in sys.path if p]
    for module in list(sys.modules.values()):
        where = getattr(module, "__file__", None)
        if isinstance(where, str):
            found.append(os.path.realpath(os.path.dirname(where)))
    return [p for p in found if os.path.exists(p)]


def link_targets(folders: list) -> list:
    """Where the symbolic links beneath ``folders`` lead, when that is outside them (links in
    those targets followed in turn)."""
    targets: list = []
    todo, seen, walked = list(folders), set(), 0
    while todo and walked < MAX_WALKED:
        top = todo.pop()
        stack = [top] if os.path.isdir(top) else []
        while stack and walked < MAX_WALKED:
            try:
                entries = list(os.scandir(stack.pop()))
            except OSError:
                continue
            walked += len(entries)
            for entry in entries:
                if entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    if os.path.exists(target) and target not in seen \
                            and not any(_inside(target, f) for f in folders + targets):
                        seen.add(target)
                        targets.append(target)
                        todo.append(target)
                elif entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    stack.append(entry.path)
    return targets


def mapped_library_folders() -> list:
    """The folders of the files this process has mapped (its shared libraries)."""
    found = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(maxsplit=5)
                path = parts[5].strip() if len(parts) == 6 else ""
                if path.startswith("/") and ".so" in os.path.basename(path) and os.path.isfile(path):
                    found.add(os.path.realpath(os.path.dirname(path)))
    except OSError:
        pass
    return sorted(found)


def allowed(path: str, forbidden: list, protected: list) -> bool:
    """May a kernel read ``path``? Not if it holds a forbidden or protected place (or is one),
    nor if it lies inside a forbidden one."""
    holds = any(_inside(place, path) for place in forbidden + protected)
    return not holds and not any(_inside(path, place) for place in forbidden)


def readable(forbidden: list, protected: list) -> list:
    """Every path a kernel may read, as (path) strings: see the module's docstring.
    ``forbidden``: places nothing readable may hold or lie inside (the course's nbgrader
    folders, the exchange); ``protected``: places nothing readable may hold, though a
    readable folder may lie inside them (the course folder, where an editable install's
    packages live; the instructor's home, where a Python installation may live)."""
    forbidden = [os.path.realpath(p) for p in forbidden if p]
    protected = [os.path.realpath(p) for p in protected if p]
    python = _outermost(p for p in python_folders() if allowed(p, forbidden, protected))
    python += [p for p in link_targets(python) if allowed(p, forbidden, protected)]
    libraries = mapped_library_folders() + [os.path.realpath(p) for p in LIBRARY_FOLDERS if os.path.isdir(p)]
    system = [p for p in SYSTEM_FILES if os.path.exists(p)]
    return _outermost(p for p in python + libraries + system if allowed(p, forbidden, protected))
