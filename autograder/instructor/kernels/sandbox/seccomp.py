"""A seccomp filter: system calls a grading kernel may not make at all, checked by Linux.

* no new sockets of any family: Landlock does not cover connecting to a Unix socket by
  its path (paths lead to the fork server, PostgreSQL, other kernels), and a kernel has
  no use for the others (``AF_PACKET``, ``AF_VSOCK``, ``AF_NETLINK``, ``AF_ALG``, UDP). The
  kernel's own sockets are made before the filter is installed; pairs
  (``socketpair``, used by asyncio) make no connection to anything;
* no memory that no process's size shows: ``memfd_create``, ``memfd_secret`` and System V
  shared memory (``shmget``) could hold gigabytes past the address-space limit (the
  control group, where there is one, counts them, but nothing in a kernel needs them);
* no new processes and no new programs: ``fork``, ``vfork``, ``clone`` without
  ``CLONE_THREAD`` and ``execve`` fail (threads work; ``clone3`` reports ENOSYS, so
  the C library falls back to ``clone``, whose flags the filter can read);
* none of: ``ptrace``, reading or writing another process's memory or descriptors
  (``process_vm_*``, ``pidfd_getfd``, ``process_madvise``, ``kcmp``), ``io_uring`` (its
  operations bypass this filter), ``bpf``, ``perf_event_open``, ``userfaultfd``, the
  kernel keyring, ``mount``/``unshare``/``setns``/``chroot``;
* nothing Linux counts per user on the whole machine, whichever namespace asks: the
  instructor's user shares those counts with JupyterLab, editors and file watchers, and a
  kernel needs none of them. A kernel made 126 inotify instances, all that the user's
  limit of 128 (``fs.inotify.max_user_instances``) left, and the instructor's other processes
  were refused theirs. So: no ``inotify`` or ``fanotify``; no POSIX message queues (``RLIMIT_MSGQUEUE``,
  per user) and no System V message queues or semaphores; no pipes and no FIFOs
  (``pipe``, ``pipe2``, ``mknod``): a pipe's buffer counts against the user's
  ``fs.pipe-user-pages-soft`` (16 384 pages), and a kernel could make ~500 pipes and
  grow each to 1 MB (``F_SETPIPE_SZ``), past which every new pipe of the user gets a
  single page; no asynchronous I/O contexts (``io_setup``): their events come from one
  count for the whole machine, every user's (``fs.aio-max-nr``, 65 536), and a kernel took
  60 000 with one call. An honest kernel holds no pipe, queue, watch or AIO context (its descriptors, measured:
  19 sockets, 29 eventfd and epoll descriptors, /dev/null). User namespaces (``unshare``,
  ``clone``) and keys are refused above; processes and threads, queued signals and epoll
  watches (which a kernel needs: ipykernel makes its event loops after this filter) are
  bounded by the kernel's limits (``sandbox``), which Linux counts in the user's totals too.
Everything else is allowed. The filter covers every thread (``TSYNC``).
"""
from __future__ import annotations

import ctypes
import errno
import struct

from .syscalls import MACHINE, PR_SET_NO_NEW_PRIVS, Unsupported, prctl, syscall

CLONE_THREAD = 0x10000
ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
SYSCALLS = {
    "x86_64": dict(clone=56, clone3=435, deny=[
        41,  # socket
        319, 447, 29,  # memfd_create, memfd_secret, shmget
        438, 440, 312,  # pidfd_getfd, process_madvise, kcmp
        57, 58, 59, 322,  # fork, vfork, execve, execveat
        101, 310, 311,  # ptrace, process_vm_readv, process_vm_writev
        321, 298, 323,  # bpf, perf_event_open, userfaultfd
        248, 249, 250,  # add_key, request_key, keyctl
        425, 426, 427,  # io_uring_setup, io_uring_enter, io_uring_register
        165, 166, 155, 161, 272, 308,  # mount, umount2, pivot_root, chroot, unshare, setns
        428, 429, 430, 431, 432, 433, 442,  # open_tree, move_mount, fsopen, fsconfig, fsmount, fspick, mount_setattr
        253, 294, 254, 300, 301,  # inotify_init, inotify_init1, inotify_add_watch, fanotify_init, fanotify_mark
        240, 241, 242, 243, 244, 245,  # mq_open, mq_unlink, mq_timedsend, mq_timedreceive, mq_notify, mq_getsetattr
        68, 64,  # msgget, semget
        22, 293, 133, 259,  # pipe, pipe2, mknod, mknodat
        206, 207, 208, 209, 210, 333,  # io_setup, io_destroy, io_getevents, io_submit, io_cancel, io_pgetevents
    ]),
    "aarch64": dict(clone=220, clone3=435, deny=[
        198, 279, 447, 194, 438, 440, 272,
        221, 281, 117, 270, 271, 280, 241, 282, 217, 218, 219, 425, 426, 427,
        40, 39, 41, 51, 97, 268, 428, 429, 430, 431, 432, 433, 442,
        26, 27, 262, 263, 180, 181, 182, 183, 184, 185, 186, 190, 59, 33, 0, 1, 2, 3, 4, 292,
    ]),
}

LD_ABS, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
ALLOW, ERRNO, KILL = 0x7FFF0000, 0x00050000, 0x80000000


def _program() -> list:
    """The filter as (code, jump-if-true label, jump-if-false label, k) with symbolic labels."""
    if MACHINE not in SYSCALLS:
        raise Unsupported(f"no seccomp filter for {MACHINE}")
    nr = SYSCALLS[MACHINE]
    prog = [(LD_ABS, None, None, 4), (JEQ, None, "deny_all", ARCH[MACHINE]), (LD_ABS, None, None, 0)]
    if MACHINE == "x86_64":
        prog.append((JGE, "deny", None, 0x40000000))  # the x32 ABI
    prog += [(JEQ, "clone", None, nr["clone"]), (JEQ, "enosys", None, nr["clone3"])]
    prog += [(JEQ, "deny", None, number) for number in nr["deny"]]
    prog += [(RET, None, None, ALLOW),
             ("clone", LD_ABS, None, None, 16), (JSET, "allow", "deny", CLONE_THREAD),
             ("allow", RET, None, None, ALLOW),
             ("enosys", RET, None, None, ERRNO | errno.ENOSYS),
             ("deny", RET, None, None, ERRNO | errno.EPERM),
             ("deny_all", RET, None, None, ERRNO | errno.EPERM)]
    return prog


def assemble(prog: list) -> bytes:
    labels, plain = {}, []
    for instruction in prog:
        if isinstance(instruction[0], str):
            labels[instruction[0]] = len(plain)
            instruction = instruction[1:]
        plain.append(instruction)
    out = b""
    for index, (code, when_true, when_false, k) in enumerate(plain):
        jt = labels[when_true] - index - 1 if when_true else 0
        jf = labels[when_false] - index - 1 if when_false else 0
        out += struct.pack("=HBBI", code, jt, jf, k)
    return out


def install() -> None:
    """Install the filter on every thread of this process. Irreversible."""
    code = assemble(_program())
    buffer = ctypes.create_string_buffer(code)
    fprog = struct.pack("=HxxxxxxQ", len(code) // 8, ctypes.addressof(buffer))
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    syscall("seccomp", 1, 1, ctypes.create_string_buffer(fprog))  # SET_MODE_FILTER, FILTER_FLAG_TSYNC
