"""A control group per grading kernel: memory and process limits that hold.

An address-space limit (``RLIMIT_AS``) counts what a process maps, not what it pins:
pages of a ``memfd`` or a tmpfs file stay charged to nobody's RSS once unmapped, so the
kernel's out-of-memory killer would pick another process. A memory control group counts
every page a kernel touches (its heap, its tmpfs, page cache, pipe buffers, kernel
memory in cgroup v1) and, past its limit, the OOM killer ends that kernel alone. The
``pids`` controller bounds processes *and threads* (a kernel once made 6 000 threads
through ``ctypes``).

``Limits.create`` finds a hierarchy this process may write: cgroup v1's ``memory`` and
``pids`` controllers (each its own hierarchy), or cgroup v2 with both controllers enabled
for new children (a delegated subtree, or the root as root). It makes a group for the run
(``autograder-<pid>``) beneath this process's own, and one beneath that per kernel: the
kernel's parent joins it before it enters its namespaces, so the kernel and everything it
starts are in it, and Landlock keeps the kernel from writing ``/sys/fs/cgroup``. Where no
hierarchy can be written, ``create`` returns ``None`` with the reason, and the seccomp
filter's ``memfd_create`` refusal and ``RLIMIT_NPROC`` stand in (see ``sandbox``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


def _own_paths() -> dict:
    """{controller or "" (v2): this process's group path}, from /proc/self/cgroup."""
    paths = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            number, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in (controllers.split(",") if controllers else [""]):
                paths[controller] = path
    return paths


def _mounts() -> dict:
    """{controller or "" (v2): (mount point, root of the mount)} from /proc/self/mountinfo."""
    found = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            dash = fields.index("-")
            kind, options = fields[dash + 1], fields[dash + 3].split(",")
            if kind == "cgroup2":
                found.setdefault("", (fields[4], fields[3]))
            elif kind == "cgroup":
                for controller in ("memory", "pids"):
                    if controller in options:
                        found.setdefault(controller, (fields[4], fields[3]))
    return found


def _folder(mount: tuple, path: str) -> Path:
    point, root = mount
    relative = path[len(root):] if root != "/" and path.startswith(root) else path
    return Path(point) / relative.lstrip("/")


def _write(path: Path, value) -> None:
    with open(path, "w") as f:
        f.write(str(value))


@dataclass
class Limits:
    version: int
    groups: list  # the run's group in each hierarchy (v1: memory's and pids'; v2: one)

    @classmethod
    def create(cls, name: str) -> tuple:
        """(Limits, "") or (None, why not)."""
        try:
            own, mounts = _own_paths(), _mounts()
        except (OSError, ValueError) as exc:
            return None, f"cannot read this process's control groups ({exc})"
        reasons = []
        if "memory" in mounts and "pids" in mounts and "memory" in own and "pids" in own:
            groups = [_folder(mounts[c], own[c]) / name for c in ("memory", "pids")]
            made, why = cls._make(groups)
            if made:
                return cls(1, groups), ""
            reasons.append(f"cgroup v1: {why}")
        if "" in mounts and "" in own:
            made, why = cls._v2(_folder(mounts[""], own[""]), _folder(mounts[""], "/"), name)
            if made is not None:
                return cls(2, [made]), ""
            reasons.append(f"cgroup v2: {why}")
        return None, "; ".join(reasons) or "no cgroup memory and pids controllers are mounted"

    @staticmethod
    def _make(groups: list) -> tuple:
        try:
            for group in groups:
                group.mkdir(exist_ok=True)
        except OSError as exc:
            for group in groups:
                _remove(group)
            return False, exc.strerror or str(exc)
        return True, ""

    @classmethod
    def _v2(cls, own: Path, root: Path, name: str) -> tuple:
        """A run group under this process's own group (if it already delegates memory and
        pids to its children) or, as root, under the hierarchy's root."""
        why = ""
        for parent in (own, root):
            try:
                enabled = (parent / "cgroup.subtree_control").read_text().split()
            except OSError as exc:
                why = exc.strerror
                continue
            if "memory" not in enabled or "pids" not in enabled:
                why = f"{parent} does not delegate memory and pids"
                continue
            made, why = cls._make([parent / name])
            if made:
                try:
                    _write(parent / name / "cgroup.subtree_control", "+memory +pids")
                    return parent / name, ""
                except OSError as exc:
                    why = exc.strerror
                    _remove(parent / name)
        return None, why

    def join_new(self, kernel: str, memory_bytes: int, processes: int) -> None:
        """Make the group of one kernel, set its limits and move this process into it
        (the kernel's parent, before it forks the kernel). Raises OSError."""
        groups = [group / kernel for group in self.groups]
        for group in groups:
            group.mkdir()
        if self.version == 1:
            memory, pids = groups
            _write(memory / "memory.limit_in_bytes", memory_bytes)
            if (memory / "memory.memsw.limit_in_bytes").exists():  # swap counted too, where it is
                _write(memory / "memory.memsw.limit_in_bytes", memory_bytes)
            _write(pids / "pids.max", processes)
        else:
            group = groups[0]
            _write(group / "memory.max", memory_bytes)
            if (group / "memory.swap.max").exists():
                _write(group / "memory.swap.max", 0)
            _write(group / "pids.max", processes)
        for group in groups:
            _write(group / "cgroup.procs", os.getpid())

    def sweep(self) -> None:
        """Remove the groups of kernels that have ended: a group with a process in it stays,
        and so does one whose maker (``kernel-<pid>``, the kernel's parent) still runs: it may
        be setting it up."""
        for group in self.groups:
            if group.is_dir():
                for child in group.iterdir():
                    maker = child.name.rsplit("-", 1)[-1]
                    if child.is_dir() and not (maker.isdigit() and Path(f"/proc/{maker}").exists()):
                        _remove(child)

    def close(self) -> None:
        """Remove every group (once their processes have ended)."""
        for group in self.groups:
            if group.is_dir():
                for child in group.iterdir():
                    if child.is_dir():
                        _remove(child)
            _remove(group)


def _remove(group: Path) -> None:
    try:
        group.rmdir()
    except OSError:  # not empty yet, or gone
        pass


def sweep_stale(prefix: str) -> None:
    """Remove the run groups (and their kernels' groups) that earlier servers left, when the
    server that made them is gone (a server killed with SIGKILL cannot clean up)."""
    try:
        own, mounts = _own_paths(), _mounts()
    except (OSError, ValueError):
        return
    for controller in ("memory", "pids", ""):
        if controller not in own or controller not in mounts:
            continue
        parent = _folder(mounts[controller], own[controller])
        try:
            runs = [p for p in parent.iterdir() if p.is_dir() and p.name.startswith(prefix)]
        except OSError:
            continue
        for run in runs:
            pid = run.name[len(prefix):]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                for child in run.iterdir():
                    if child.is_dir():
                        _remove(child)
                _remove(run)
