"""The operating system's sandbox around every grading kernel.

Chosen over bubblewrap (Debian's tool for the same namespaces and mounts) because
kernels are forked from a server that has already imported torch: a forked child can
enter namespaces and restrict itself in a few milliseconds, while an exec'd sandbox
would import torch again (2–3 s per submission). The pieces, each enforced by Linux:

1. namespaces (``namespaces``): own user, network (no network at all), PID (the kernel
   is process 1: it sees and signals nothing outside, and nothing it starts outlives
   it), mount, IPC and UTS namespaces; a /proc of its own;
2. a private tmpfs of ``scratch_mb`` MB as its working folder, holding a copy of the
   submission folder's regular files (``files.copy_regular``) and its own HOME, IPython
   profile and temporary files; nothing in it is ever copied back;
3. Landlock (``landlock``): read-only access to the Python environment, the lesson
   packages and a few system files; read-write only to its scratch folder; the right to
   create its ZeroMQ sockets in its own socket folder; no TCP; no signals or abstract
   sockets outside;
4. seccomp (``seccomp``), once the kernel's own sockets and threads exist: no new Unix
   sockets, processes or programs, and none of the calls that reach other processes;
5. resource limits: address space (memory), file size, no core dumps; and no capabilities.

The kernel's environment holds only what the grader lists (``environment``). Where the
machine cannot do all this, ``probe`` says why, and grading refuses to start unless the
instructor asks for ``--no-sandbox``.
"""
from __future__ import annotations

import os
import resource
import site
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from .. import files
from . import landlock, namespaces, seccomp
from .syscalls import Unsupported, drop_capabilities

DEFAULT_MEMORY_MB = 2048
DEFAULT_SCRATCH_MB = 256
MAX_FILE_MB = 200
SYSTEM_READ = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/ld.so.cache", "/etc/localtime",
               "/etc/fonts", "/sys/devices/system/cpu", "/proc", "/dev/urandom", "/dev/random", "/dev/zero"]


@dataclass
class Spec:
    scratch: str  # the kernel's working folder (a private tmpfs inside its mount namespace)
    stage: str  # the folder whose regular files it starts with (its copy of the submission)
    ipc: str  # the folder where it makes its ZeroMQ sockets
    readable: list = field(default_factory=list)  # besides the system's libraries
    memory_mb: int = DEFAULT_MEMORY_MB
    scratch_mb: int = DEFAULT_SCRATCH_MB
    enabled: bool = True


def python_paths() -> list:
    """What importing Python code needs to read: the interpreter, its standard library,
    site-packages, and the lesson packages (which may be installed in editable mode)."""
    import autograder
    import lessons

    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             *site.getsitepackages(), *sysconfig.get_paths().values(),
             os.path.dirname(autograder.__file__), os.path.dirname(lessons.__file__)}
    return sorted(p for p in paths if p and os.path.isdir(p))


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
    with open("/proc/self/status") as f:
        mapped = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    if memory_mb:
        cap = mapped + memory_mb * 2 ** 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_MB * 2 ** 20,) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def confine(spec: Spec) -> files.Copied:
    """In the kernel process, before anything of the student's exists: its own /proc and
    scratch folder with the submission's files, limits, then Landlock. Returns what was
    copied (and what was not)."""
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
        rules = [(path, landlock.READ) for path in SYSTEM_READ + python_paths() + list(spec.readable)]
        rules += [("/dev/null", landlock.READ | landlock.WRITE_FILE), (spec.scratch, ~0),
                  (spec.ipc, landlock.MAKE_SOCK | landlock.READ_DIR)]
        landlock.restrict(rules)
    return copied


def seal(spec: Spec) -> None:
    """In the kernel, once its sockets and threads exist and before any student code:
    the seccomp filter, and no capabilities."""
    if spec.enabled:
        seccomp.install()
        drop_capabilities()


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
