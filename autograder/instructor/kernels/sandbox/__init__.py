"""The operating system's sandbox around every grading kernel.

Chosen over bubblewrap (Debian's tool for the same namespaces and mounts) because
kernels are forked from a server that has already imported torch: a forked child can
enter namespaces and restrict itself in a few milliseconds, while an exec'd sandbox
would import torch again (2–3 s per submission). The pieces, each enforced by Linux:

1. a control group per kernel (``cgroups``), joined before anything else: memory (every
   page it touches, tmpfs and page cache included) and processes plus threads;
2. namespaces (``namespaces``): own user, network (no network at all), PID (the kernel
   is process 1: it sees and signals nothing outside, and nothing it starts outlives
   it), mount, IPC and UTS namespaces; a /proc of its own;
3. a private tmpfs of ``scratch_mb`` MB as its working folder, holding a copy of the
   submission folder's regular files (``files.copy_regular``) and its own HOME, IPython
   profile and temporary files; nothing in it is ever copied back;
4. Landlock (``landlock``): read-only access to what ``paths.readable`` lists (the Python
   environment the server really uses, the system's libraries, a few files), never the
   course folder, the exchange or the instructor's home; read-write only to its scratch
   folder; the right to create its ZeroMQ sockets in its own socket folder; no TCP; no
   signals or abstract sockets outside;
5. resource limits (address space, file size, open files, processes, no core dumps) and
   no capabilities at all, dropped while the kernel still has a single thread, so that
   no thread it starts later holds one;
6. seccomp (``seccomp``), once the kernel's own sockets exist: no new sockets, processes,
   programs or hidden memory, none of the calls that reach other processes, and nothing
   Linux counts per user on the whole machine (inotify, message queues, pipes, epoll).

The kernel's environment holds only what the grader lists (``environment``). Where the
machine cannot do all this, ``probe`` says why, and grading refuses to start unless the
instructor asks for ``--no-sandbox``.
"""
from __future__ import annotations

import os
import resource
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ... import files
from . import landlock, namespaces, seccomp
from .syscalls import Unsupported, drop_capabilities

DEFAULT_MEMORY_MB = 2048
DEFAULT_SCRATCH_MB = 256
MAX_FILE_MB = 200
# Open files of one kernel (an honest one holds ~50: its sockets, eventfds and epoll instances).
# Each file a kernel adds to an epoll instance is one of the user's ``fs.epoll.max_user_watches``
# on the whole machine (~430 000 on a 2 GB machine), at most (files / 2)² of them: at 1 024 a
# kernel added 236 682, at 256 at most ~16 000. (A kernel needs epoll: ipykernel's event loops
# make theirs after the seccomp filter is in place, so creating one cannot be refused.)
MAX_OPEN_FILES = 256
# Processes and threads of one kernel: an IPython kernel runs about ten threads; torch, with one
# thread per kernel, none of its own.
MAX_TASKS = 128
# Signals queued to a kernel and not yet handled (real-time signals, timers' signals): Linux counts
# them in the user's total on the whole machine too (``RLIMIT_SIGPENDING``, 96 369 here), and a
# kernel that blocked a real-time signal queued 96 367 of them to its main thread, the user's
# whole limit less the two queued elsewhere. Python handles a signal as it comes; nothing in a
# kernel queues more than a few.
MAX_QUEUED_SIGNALS = 64


@dataclass
class Spec:
    scratch: str  # the kernel's working folder (a private tmpfs inside its mount namespace)
    stage: str  # the folder whose regular files it starts with (its copy of the submission)
    ipc: str  # the folder where it makes its ZeroMQ sockets
    readable: list = field(default_factory=list)  # what it may read (``paths.readable``, worked out by the server)
    memory_mb: int = DEFAULT_MEMORY_MB
    scratch_mb: int = DEFAULT_SCRATCH_MB
    enabled: bool = True


def environment(spec: Spec, extra: dict) -> dict:
    """The kernel's whole environment: its own folders, and the variables the grader lists."""
    scratch = spec.scratch
    env = {"HOME": scratch, "TMPDIR": os.path.join(scratch, ".tmp"), "IPYTHONDIR": os.path.join(scratch, ".ipython"),
           "MPLCONFIGDIR": os.path.join(scratch, ".matplotlib"), "JUPYTER_RUNTIME_DIR": os.path.join(scratch, ".jupyter"),
           "JUPYTER_CONFIG_DIR": os.path.join(scratch, ".jupyter"), "JUPYTER_DATA_DIR": os.path.join(scratch, ".jupyter"),
           "PATH": os.path.dirname(sys.executable) + ":/usr/bin:/bin", "LANG": "C.UTF-8",
           "PYTHONNOUSERSITE": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env.update(extra)
    return env


def enter_namespaces(spec: Spec) -> None:
    """In the kernel's parent, before it forks the kernel: new namespaces."""
    if spec.enabled:
        namespaces.unshare_all()


def _limits(memory_mb: int) -> None:
    """Address space (beyond what the warm kernel maps already), file size, open files,
    processes and threads (``RLIMIT_NPROC`` counts them per user namespace, so this is a
    limit per kernel, except for root, whom Linux exempts: the control group bounds a
    kernel run as root), queued signals and POSIX message queues (counted in the user's
    totals on the whole machine: see ``seccomp``), and no core dumps."""
    with open("/proc/self/status") as f:
        mapped = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    if memory_mb:
        cap = mapped + memory_mb * 2 ** 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_MB * 2 ** 20,) * 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (MAX_OPEN_FILES,) * 2)
    resource.setrlimit(resource.RLIMIT_NPROC, (MAX_TASKS,) * 2)
    resource.setrlimit(resource.RLIMIT_SIGPENDING, (MAX_QUEUED_SIGNALS,) * 2)
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def confine(spec: Spec) -> files.Copied:
    """In the kernel process, while it has one thread and before anything of the student's
    exists: its own /proc and scratch folder with the submission's files, limits, Landlock,
    and no capabilities. Returns what was copied (and what was not)."""
    if spec.enabled:
        namespaces.private_mounts()
        namespaces.own_proc()
        namespaces.tmpfs(spec.scratch, spec.scratch_mb)
    copied = files.copy_regular(Path(spec.stage), Path(spec.scratch), skip=lambda name: name.endswith(".ipynb"))
    for folder in (".tmp", ".ipython", ".matplotlib", ".jupyter"):
        os.makedirs(os.path.join(spec.scratch, folder), exist_ok=True)
    os.chdir(spec.scratch)
    _limits(spec.memory_mb)
    if spec.enabled:
        rules = [(path, landlock.READ) for path in spec.readable]
        rules += [("/dev/null", landlock.READ | landlock.WRITE_FILE), (spec.scratch, ~0),
                  (spec.ipc, landlock.MAKE_SOCK | landlock.READ_DIR)]
        landlock.restrict(rules)
        drop_capabilities()
    return copied


def seal(spec: Spec) -> None:
    """In the kernel, once its sockets exist and before any student code: the seccomp
    filter (on every thread)."""
    if spec.enabled:
        seccomp.install()


def probe() -> str | None:
    """Why this machine cannot sandbox grading kernels, or None if it can: tried for real
    in a short-lived child process."""
    if landlock.abi() < 1:
        return "Landlock is not available in this Linux kernel (it needs Linux 5.13 or newer with Landlock enabled)"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        reason = b""
        try:
            namespaces.unshare_all()
            seccomp.assemble(seccomp._program())
        except (OSError, Unsupported) as exc:
            reason = f"unprivileged user namespaces do not work here ({exc})".encode()
        os.write(write, reason)
        os._exit(0)
    os.close(write)
    reason = os.read(read, 1000).decode()
    os.close(read)
    os.waitpid(pid, 0)
    return reason or None
