"""The grading kernels: forked from the warm server, fresh each time, and in the operating
system's sandbox (Landlock, namespaces, seccomp, limits). Each probe is what a hostile
student would try; each must fail for a reason Linux gives, not Python."""
from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import psutil
import pytest
from helpers import ROOT
from kernels import run

from autograder.instructor.kernels import sandbox
from autograder.instructor.kernels.services import Services

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def services():
    started = Services.start(ROOT, sandbox=True)
    yield started
    fork_server, judge = started.processes["fork"].pid, str(started.processes["judge"].pid)
    deadline = time.monotonic() + 5  # the last kernel was killed a moment ago: let the server collect it
    while (children := [pid for pid in Path(f"/proc/{fork_server}/task/{fork_server}/children").read_text().split()
                        if pid != judge]) and time.monotonic() < deadline:  # (the judge is its child too)
        time.sleep(0.05)
    started.close()
    for pid in children:
        os.kill(int(pid), signal.SIGKILL)
    assert children == [], "kernels still running after their notebooks finished"


@pytest.fixture(scope="module")
def odd_services(tmp_path_factory):
    """Services this module starts for itself once (a start costs two servers' imports of torch:
    seconds each), under every condition of the tests that need their own: a canary in the
    starting process's environment, packages reached through a folder of symbolic links and
    one only through PYTHONPATH (sys.path), and a temporary folder too long for a socket. Each
    condition matters only while the servers start; the tests that read them share the run:
    (services, canary secret, long folder, linked site-packages folder)."""
    import site
    import tempfile

    base = tmp_path_factory.mktemp("odd")
    real = site.getsitepackages()[0]
    linked = base / "linked-site-packages"
    linked.mkdir()
    for entry in os.listdir(real):
        (linked / entry).symlink_to(os.path.join(real, entry))
    store = base / "store" / "zz_linked_pkg"  # a package whose folder lives elsewhere
    store.mkdir(parents=True)
    (store / "__init__.py").write_text("VALUE = 7\n")
    (linked / "zz_linked_pkg").symlink_to(store)
    extra = base / "on-pythonpath"
    (extra / "zz_extra_pkg").mkdir(parents=True)
    (extra / "zz_extra_pkg" / "__init__.py").write_text("VALUE = 42\n")
    deep = base / ("a-long-folder-name-" * 4)
    deep.mkdir()
    secret = "canary-" + os.urandom(8).hex()
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(sys, "path", [str(extra), *[str(linked) if p == real else p for p in sys.path]])
        patched.setattr(tempfile, "tempdir", str(deep))
        patched.setenv("ZZ_INSTRUCTOR_SECRET", secret)
        started = Services.start(ROOT, sandbox=True)
    try:
        yield started, secret, deep, linked
    finally:
        started.close()


@pytest.fixture
def stage(tmp_path):
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "data.csv").write_text("1,2\n")
    (folder / "link_to_course").symlink_to(ROOT / "nbgrader_config.py")
    (folder / "nested").mkdir()
    (folder / "nested" / "more.txt").write_text("x")
    return folder


def test_this_machine_can_sandbox():
    assert sandbox.probe() is None


def test_kernels_are_fresh_processes_with_torch_already_imported(services, stage):
    probe = ["import os, sys; print(os.getpid(), 'torch' in sys.modules)", "print('leak' in globals())", "leak = 1"]
    first, second = run(probe, services, stage), run(probe, services, stage)
    assert first[0].split() == second[0].split() == ["1", "True"]  # process 1 of its own namespace
    assert first[1].strip() == second[1].strip() == "False"  # nothing from the previous student


def test_a_kernels_optimizers_do_not_import_torchs_compiler(services, stage):
    """The fork server installed lessons.compiler_on_demand (torch's compiler: 0.86 s of CPU a kernel)."""
    probe = ["import sys, torch\nw = torch.nn.Parameter(torch.ones(2))\noptimizer = torch.optim.SGD([w], lr=0.1)\n"
             "(w * w).sum().backward()\noptimizer.step()\noptimizer.zero_grad()\n"
             "print(w.tolist(), 'torch._dynamo' in sys.modules)"]
    assert run(probe, services, stage)[0].strip() == "[0.800000011920929, 0.800000011920929] False"


def test_only_what_python_prints_is_kept(services, stage):
    """Writes that bypass Python (straight to descriptors 1 and 2) go to /dev/null: ipykernel's
    capture of them is off in grading kernels (``forkserver.NO_FD_CAPTURE``)."""
    cells = ["import sys; print('printed'); print('warned', file=sys.stderr)",
             "import os; os.write(1, b'bypassed 1'); os.write(2, b'bypassed 2'); print('after')"]
    printed, bypassed = run(cells, services, stage)
    assert printed.split() == ["printed", "warned"] and bypassed.split() == ["after"]


def test_the_kernel_sees_only_its_copy_of_the_submission(services, stage):
    out = run(["import os; print(sorted(os.listdir('.')), open('data.csv').read().strip())",
               "print(open('nested/more.txt').read())",
               f"open({str(ROOT / 'nbgrader_config.py')!r}).read()",
               f"os.listdir({str(ROOT)!r})",
               f"open({str(ROOT / 'source' / '03_zeroing_grad' / '03_zeroing_grad.ipynb')!r}).read()",
               "os.listdir('/')", "os.listdir(os.path.expanduser('~/..'))",
               f"open({str(stage / 'data.csv')!r}).read()"], services, stage)
    assert out[0].startswith("['.ipython', '.jupyter', '.matplotlib', '.tmp', 'data.csv', 'nested'] 1,2")  # no link
    assert out[1] == "x\n"
    assert all(line.startswith("PermissionError") for line in out[2:]), out[2:]


def test_it_writes_only_in_its_scratch_folder_and_not_much_there(services, stage):
    import autograder
    out = run(["open('notes.txt', 'w').write('mine'); print('ok')",
               f"open({os.path.join(os.path.dirname(autograder.__file__), 'evil.py')!r}, 'w')",
               "import sys, site; open(site.getsitepackages()[0] + '/evil.pth', 'w')",
               f"open({str(stage / 'planted.txt')!r}, 'w')",
               "open('/tmp/planted', 'w')",
               "open('big', 'wb').write(b'x' * 100 * 2**20)"], services, stage)
    assert out[0] == "ok\n"
    assert all(line.startswith("PermissionError") for line in out[1:5]), out
    assert "No space left on device" in out[5] or out[5].startswith("OSError"), out[5]
    assert not (stage / "planted.txt").exists() and not Path("/tmp/planted").exists()
    assert (stage / "data.csv").read_text() == "1,2\n" and not (stage / "notes.txt").exists()


def test_no_network_no_programs_no_other_processes(services, stage):
    out = run([
        "import socket\nsocket.create_connection(('127.0.0.1', 5432), timeout=2)",
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'x', ('127.0.0.1', 53))",
        "socket.socket(socket.AF_UNIX)",
        "import subprocess; subprocess.run(['true'])",
        "import os; os.fork()",
        "print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))",
        f"os.kill({os.getpid()}, 0)",
        "import threading; t = threading.Thread(target=lambda: None); t.start(); t.join(); print('threads work')",
    ], services, stage)
    assert out[0].startswith("PermissionError") or out[0].startswith("OSError"), out[0]
    assert "Network is unreachable" in out[1] or out[1].startswith("PermissionError"), out[1]
    assert all(line.startswith("PermissionError") for line in out[2:5]), out[2:5]
    assert out[5] == "[1]\n"  # its own /proc: only itself
    assert out[6].startswith("ProcessLookupError"), out[6]  # the grader's process is not even visible
    assert out[7] == "threads work\n"


def test_its_environment_is_its_own(services, stage):
    os.environ["AUTOGRADER_TEST_SECRET"] = "the instructor's password"
    try:
        out = run(["import os; print(sorted(os.environ))", "print(os.environ['HOME'] == os.getcwd())"],
                  services, stage, env={"AUTOGRAD_LESSONS_LANG": "es"})
    finally:
        del os.environ["AUTOGRADER_TEST_SECRET"]
    names = eval(out[0])
    assert "AUTOGRADER_TEST_SECRET" not in names and "AUTOGRAD_LESSONS_LANG" in names and "PATH" in names
    assert set(names) <= {"HOME", "TMPDIR", "IPYTHONDIR", "MPLCONFIGDIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR",
                          "JUPYTER_DATA_DIR", "PATH", "LANG", "PYTHONNOUSERSITE", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                          "AUTOGRADER_JUDGE_FD", "AUTOGRAD_LESSONS_LANG", "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR",
                          "GIT_PAGER", "PAGER", "MPLBACKEND", "PYDEVD_DISABLE_FILE_VALIDATION", "JPY_PARENT_PID",
                          "JPY_SESSION_NAME", "TERM"}, names
    assert out[1] == "True\n"


def test_memory_is_capped_and_a_crash_costs_only_the_kernel(services, stage):
    out = run(["big = bytearray(8 * 2**30)", "print('alive')"], services, stage)
    assert out[0].startswith("MemoryError") and out[1] == "alive\n"


def test_what_a_kernel_leaves_does_not_reach_the_next(services, stage):
    run(["import os\nos.makedirs(os.environ['IPYTHONDIR'] + '/profile_default/startup', exist_ok=True)\n"
         "open(os.environ['IPYTHONDIR'] + '/profile_default/startup/00-evil.py', 'w').write('EVIL = 1')\n"
         "open('evil_module.py', 'w').write('EVIL = 1')"], services, stage)
    out = run(["print('EVIL' in globals())", "import evil_module"], services, stage)
    assert out[0] == "False\n" and out[1].startswith("ModuleNotFoundError")


def test_without_the_sandbox_kernels_still_run(stage):
    """--no-sandbox, for machines that cannot: kernels work, and can then read the course."""
    started = Services.start(ROOT, sandbox=False)
    try:
        out = run([f"print(len(open({str(ROOT / 'nbgrader_config.py')!r}).read()) > 0)"], started, stage)
        assert out == ["True\n"]
    finally:
        started.close()


def test_ready_client_never_loses_the_first_output(services, stage):
    """ReadyClient skips the stock 0.2 s IOPub wait, but must still wait until IOPub is
    connected: otherwise the first cell's output would now and then go missing."""
    for attempt in range(10):
        assert run([f"print('first output', {attempt})"], services, stage) == [f"first output {attempt}\n"]


def test_a_long_temporary_folder_does_not_break_the_sockets(odd_services, stage):
    """Unix socket addresses hold 107 bytes: under a long TMPDIR the run's folder moves to /tmp."""
    started, _, deep, _ = odd_services
    assert not str(started.folder).startswith(str(deep))
    assert run(["print(3 * 3)"], started, stage) == ["9\n"]


def test_many_kernel_requests_in_a_row_all_get_a_kernel(services, tmp_path):
    """The server collects its children in a SIGCHLD handler: a child collected there before
    the server waited for it once made a kernel request fail in a grading run under load
    (ChildProcessError). SIGCHLD is now blocked while a kernel is spawned. (This loop did not
    hit the race on a quiet machine; it keeps the case in the suite.)"""
    from autograder.instructor.kernels.forkserver import request_kernel

    pids = []
    for attempt in range(60):
        folder = services.kernel_folder()
        spec = {"scratch": str(folder / "scratch"), "stage": str(tmp_path), "ipc": str(folder / "ipc"),
                "memory_mb": 512, "scratch_mb": 16}
        # no valid connection: the kernel gives up at once, which is all this needs
        pids.append(request_kernel(services.fork_socket, {"connection": "{}", "spec": spec, "env": {}}))
    assert len(set(pids)) == 60


def test_capabilities_limits_and_sockets_hold_in_every_thread(services, stage):
    """No thread of a kernel holds a capability (the threads ipykernel started before the
    student's code included), no socket of any family can be made, no memfd or System V
    memory, and threads run out at the kernel's task limit, not the machine's."""
    out = run([
        "import glob\nprint(sorted({open(f).read().split('CapEff:')[1].split()[0] + open(f).read().split("
        "'CapBnd:')[1].split()[0] for f in glob.glob('/proc/self/task/*/status')}))",
        "import socket\nfor family, kind in ((socket.AF_PACKET, socket.SOCK_RAW), (40, socket.SOCK_STREAM), "
        "(socket.AF_NETLINK, socket.SOCK_RAW), (socket.AF_INET, socket.SOCK_DGRAM), (38, socket.SOCK_SEQPACKET)):\n"
        "    try:\n        socket.socket(family, kind)\n        print('made', family)\n"
        "    except PermissionError:\n        pass\nprint('no sockets')",
        "import os\nos.memfd_create('x')",
        "import ctypes\nprint(ctypes.CDLL(None).shmget(0, 2**20, 0o1600))",
        "import threading\nstop, made = threading.Event(), []\ntry:\n    for _ in range(1000):\n"
        "        t = threading.Thread(target=stop.wait); t.start(); made.append(t)\nexcept RuntimeError:\n    pass\n"
        "stop.set()\nprint(len(made) < sandbox_tasks)".replace("sandbox_tasks", str(sandbox.MAX_TASKS)),
        "print('still alive')",
    ], services, stage)
    assert out[0] == "['00000000000000000000000000000000']\n", out[0]
    assert out[1] == "no sockets\n", out[1]
    assert out[2].startswith("PermissionError") and out[3] == "-1\n", out[2:4]
    assert out[4] == "True\n" and out[5] == "still alive\n", out[4:]


HOST_WIDE_COUNTS = r'''
import ctypes, os, select, signal, threading
libc = ctypes.CDLL(None, use_errno=True)
def refused(result):
    return result < 0 and ctypes.get_errno() == 1  # EPERM: seccomp
got = {"inotify": refused(libc.inotify_init1(0)), "inotify_init": refused(libc.syscall(253)),
       "fanotify": refused(libc.fanotify_init(0, 0)),
       "mq_open": refused(libc.mq_open(b"/zz", os.O_CREAT | os.O_RDWR, 0o600, None)),
       "msgget": refused(libc.msgget(0, 0o1600)), "semget": refused(libc.semget(0, 1, 0o1600)),
       "io_setup": refused(libc.syscall(206 if os.uname().machine == "x86_64" else 0, 60_000,
                                        ctypes.byref(ctypes.c_ulong(0))))}
for name, make in (("pipe", os.pipe), ("fifo", lambda: os.mkfifo("zz-fifo"))):
    try:
        make()
        got[name] = False
    except PermissionError:
        got[name] = True
signal.signal(signal.SIGRTMIN, lambda *a: None)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})
info = (ctypes.c_int * 32)(signal.SIGRTMIN, 0, -1)
queued = 0
while queued < 100_000 and libc.syscall(297, os.getpid(), threading.get_native_id(), signal.SIGRTMIN,
                                         ctypes.byref(info)) == 0:
    queued += 1
got["queued signals"] = queued
polls, files, watches = [], [], 0
try:
    while True:
        polls.append(select.epoll())
        files.append(os.eventfd(0))
except OSError:
    pass
for poll in polls:
    for fd in files:
        poll.register(fd, select.EPOLLIN)
        watches += 1
got["epoll watches"] = watches
for poll in polls:
    poll.close()
for fd in files:
    os.close(fd)
print(got)
'''


def test_nothing_counted_per_user_on_the_whole_machine_is_taken(services, stage):
    """Linux counts some things per user on the whole machine, whatever namespace asks, and the
    instructor's user shares those counts with JupyterLab and editors: a kernel made 128 inotify
    instances (the user's whole limit), queued 96 367 signals (its RLIMIT_SIGPENDING less two),
    added 236 682 epoll watches and took 60 000 of the machine's 65 536 AIO events (every user's).
    Refused: inotify, fanotify, message queues, semaphores, pipes and FIFOs, AIO (none of which an
    honest kernel holds); bounded: queued signals and epoll watches."""
    got = eval(run([HOST_WIDE_COUNTS, "print('still alive')"], services, stage)[0])
    refused = {k: v for k, v in got.items() if k not in ("queued signals", "epoll watches")}
    assert all(refused.values()), refused
    assert got["queued signals"] == sandbox.MAX_QUEUED_SIGNALS, got
    assert 0 < got["epoll watches"] <= (sandbox.MAX_OPEN_FILES // 2) ** 2, got


def own_memory_scan(pattern: str) -> str:
    """A cell that prints the sorted texts matching ``pattern`` anywhere in its kernel's writable memory."""
    return ("import re\nfound = set()\nwith open('/proc/self/maps') as maps, open('/proc/self/mem', 'rb', 0) as mem:\n"
            "    for line in maps:\n        parts = line.split()\n"
            "        if not parts[1].startswith('rw') or (len(parts) > 5 and parts[5].startswith('[v')):\n"
            "            continue\n        start, end = (int(x, 16) for x in parts[0].split('-'))\n"
            "        try:\n            mem.seek(start)\n            block = mem.read(end - start)\n"
            "        except OSError:\n            continue\n"
            f"        found |= {{m.decode() for m in re.findall(rb{pattern!r}, block)}}\n"
            "print(sorted(found))")


def test_its_environment_block_and_memory_hold_nothing_of_the_instructors(odd_services, stage, tmp_path):
    """The fork server starts with an empty environment: a canary in the grading process's
    environment is in no kernel's /proc/self/environ, cmdline or memory; and a kernel's
    memory holds its own request only, not the stage folder of the kernel before it."""
    started, secret, _, _ = odd_services  # started with the canary in this process's environment
    scan = own_memory_scan(r"canary-[0-9a-f]{16}|zz-earlier-[0-9a-f]{8}")
    earlier = tmp_path / f"zz-earlier-{os.urandom(4).hex()}"
    earlier.mkdir()
    assert run(["print(1)"], started, earlier) == ["1\n"]
    out = run(["print(open('/proc/self/environ', 'rb').read())", "print(open('/proc/self/cmdline', 'rb').read())",
               scan], started, stage)
    assert secret not in "".join(out) and "ZZ_INSTRUCTOR" not in "".join(out), out
    assert out[2] == "[]\n", out[2]  # neither the secret nor the earlier kernel's folder


def test_any_ordinary_python_environment_works(odd_services, stage):
    """Packages reached through a folder of symbolic links (as some environments are made),
    and a package found only through PYTHONPATH, import in a sandboxed kernel; the course
    folder and the exchange stay unreadable."""
    started, _, _, linked = odd_services  # started with both on sys.path
    out = run(["import zz_extra_pkg, zz_linked_pkg; print(zz_extra_pkg.VALUE * zz_linked_pkg.VALUE // 7)",
               "import yaml; print(yaml.__file__.startswith(%r))" % str(linked),
               f"open({str(ROOT / 'nbgrader_config.py')!r}).read()"], started, stage)
    assert out[:2] == ["42\n", "True\n"], out
    assert out[2].startswith("PermissionError"), out[2]


def _memory_holds(pid: int, needles: list) -> list:
    """Which of ``needles`` (bytes) are anywhere in the writable memory of process ``pid``."""
    found = set()
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for line in maps:
            parts = line.split()
            if not parts[1].startswith("rw") or (len(parts) > 5 and parts[5].startswith("[v")):
                continue
            start, end = (int(x, 16) for x in parts[0].split("-"))
            try:
                mem.seek(start)
                block = mem.read(end - start)
            except OSError:
                continue
            found |= {needle for needle in needles if needle in block}
    return sorted(found)


def test_the_judge_is_forked_warm_and_alone_holds_the_course_secret(stage, monkeypatch):
    """The judge is forked from the fork server once that is warm (its imports, torch's among
    them, are the server's: ``forkserver._fork_judge``), and the course secret reaches it on a
    pipe the server never reads: the secret, as text or as the hex the settings carry, is in the
    judge's memory and in neither the fork server's nor a kernel's, though every kernel's memory
    is a copy of the server's."""
    from autograder.instructor import course_secret

    secret = "canary-" + os.urandom(8).hex()
    needles = [secret.encode(), secret.encode().hex().encode()]
    monkeypatch.setenv(course_secret.ENV, secret)
    started = Services.start(ROOT, sandbox=True)
    try:
        fork, judge = started.processes["fork"].pid, started.processes["judge"].pid
        assert psutil.Process(judge).ppid() == fork
        assert psutil.Process(judge).name() == "autograder-judg"  # (what ps and top show)
        assert _memory_holds(judge, needles)  # (the scan finds it where it is)
        assert _memory_holds(fork, needles) == []
        # (a pattern: the secret itself in the scan's code would be found there)
        found = eval(run([own_memory_scan(r"canary-[0-9a-f]{16}|63616e6172792d(?:3[0-9]|6[1-6]){16}")], started, stage)[0])
        assert not {secret, secret.encode().hex()} & set(found), found
    finally:
        started.close()


def test_a_stopped_fork_server_is_replaced(odd_services, stage, monkeypatch):
    """SIGSTOP (from outside: kernels cannot signal it) makes it stop answering; the owner
    notices and starts another at the same address. (A stopped server never answers, however
    long it is given: the ping to it waits 1 s here instead of ``services.PING_TIMEOUT``'s 10,
    which were 10 of this test's 27 s; the judge's ping, to a live server, keeps its 10 s.)"""
    from autograder.instructor.kernels import forkserver

    started = odd_services[0]  # (its servers are replaced here: the module's last test, the last to use them)
    old = started.processes["fork"].pid
    os.kill(old, signal.SIGSTOP)
    with monkeypatch.context() as patched:
        real_ping = forkserver.ping
        patched.setattr(forkserver, "ping", lambda path, timeout=10: real_ping(path, timeout=min(timeout, 1)))
        assert started.ensure_alive() == ["fork", "judge"]  # (the new server forks the new judge)
    assert started.processes["fork"].pid != old
    assert psutil.Process(started.processes["judge"].pid).ppid() == started.processes["fork"].pid
    assert run(["print(1 + 1)"], started, stage) == ["2\n"]
    started.processes["judge"].kill()
    started.processes["judge"].wait()
    assert started.ensure_alive() == ["judge"]
    assert run(["print(2 + 2)"], started, stage) == ["4\n"]
