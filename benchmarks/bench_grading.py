"""Benchmark: grading a class of lesson-3 submissions, plain nbgrader against `autograder grade`.

Measured in one run on identical copies of the same course:
  plain     `nbgrader autograde 03_zeroing_grad` as nbgrader comes (its own passes: a fresh
            kernel per notebook, no sandbox, no judge); autograde only, feedback not included
  course    `nbgrader autograde` with this course's nbgrader_config.py (sandboxed kernels from
            its own fork server, the judge): what plain nbgrader does in this course directory
  ours -j1  `autograder grade 03_zeroing_grad --jobs 1` (autograde + feedback + export)
  ours -j2  the same with two workers
  cluster   `autograder grade 03_zeroing_grad --scheduler ...` on a distributed.LocalCluster of two
            single-threaded worker processes (started once, before the rounds, like a cluster that
            is already running), gradebook on PostgreSQL; beside it `-j2 pg`, --jobs 2 with the
            same PostgreSQL server, so that the two differ only in where they grade. Needs a
            PostgreSQL server (AUTOGRADER_TEST_POSTGRES or --postgres, see .ci/postgres); without
            one these two are left out. Target: cluster ≤ 1.10 × -j2 pg. From the cluster's time it
            prints the cost of one submission in seconds of one worker core, and the sizing rule,
            and the peak memory of each (its grading processes with everything they start, PSS,
            and one grading process alone, what c.GradingWorker.memory_mb limits).
            Last run (40 students, 3 rounds, 2 shared cores, load average 5-7, another copy of this
            benchmark running beside it): cluster CPU 0.97 × -j2 pg (median of the rounds' ratios
            0.99, 0.77, 0.97; medians 86.5 s and 107.4 s), wall 1.00 ×; 2.16 s of CPU a
            submission; peak 1 158 MB for the cluster's two workers with their machine's one judge
            and fork server and their kernels, 1 017 MB for -j2; one grading process 354 MB (Dask)
            and 249 MB (--jobs). The same benchmark on the code before one judge and fork server per
            machine: 1.06 × (1.06, 0.89, 1.13; 101.6 s), 2.54 s a submission, 1 645 MB. CPU time
            counts what a command leaves behind (``reap_orphans``): without a local run's
            workers, the cluster had seemed to cost 1.63-1.77 × -j2 pg.
It also prints what the protection itself costs: the judge's CPU time per submission (its own
process), and the start-up of a sandboxed kernel against an unsandboxed one from the same
fork server (median of alternated starts).
-j1 and -j2 run alternately for several rounds (a shared machine's speed drifts by ±5 %
between runs a minute apart) and their medians are compared; the per-cell scores of every
run must equal plain nbgrader's. Each round also runs two independent -j1 gradings at the
same time: how much two busy cores slow each other down on this machine bounds what any
two-worker run can gain. Targets: ours -j2 ≤ 0.10 × plain; -j2 at least 1.8× faster
than -j1.

Usage: python benchmarks/bench_grading.py [--students 40] [--rounds 3] [--postgres URL] [--only-cluster]
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
import catalogue  # noqa: E402
from helpers import BIN, fill, isolated_env, read, solutions  # noqa: E402
from test_class_grading import NAME, make_course, scores  # noqa: E402


def submissions(n: int) -> dict:
    release = read(ROOT / "release" / NAME / f"{NAME}.ipynb")
    right = solutions(read(ROOT / "source" / NAME / f"{NAME}.ipynb"))
    wrong = {e.name: textwrap.dedent(e.source).strip() for e in catalogue.TRAIN_LOOP if e.mistake}
    kinds = list(wrong)
    out = {}
    for i in range(n):
        answers = dict(right)
        if i % 3 == 0:  # a third of the class gets the loop wrong, in various ways
            answers["train_loop"] = wrong[kinds[i % len(kinds)]]
        out[f"student{i:03d}"] = fill(release, answers)
    return out


STOCK = """
# nbgrader as it comes: its own autograde passes (no sandbox, no judge, no fork server)
c.Autograde.sanitize_preprocessors = ["nbgrader.preprocessors.ClearOutput", "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec", "nbgrader.preprocessors.OverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata"]
c.Autograde.autograde_preprocessors = ["nbgrader.preprocessors.Execute", "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor", "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades", "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata"]
c.Autograde.pre_convert_hook = None
"""


def stock(root: Path) -> Path:
    with open(root / "nbgrader_config.py", "a") as f:
        f.write(STOCK)
    return root


def timed(cmd, root, env, output: list | None = None) -> float:
    before = _children()
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=root, env=env, check=True, capture_output=True, text=True)
    if output is not None:
        output.append(done.stdout)
    seconds = time.perf_counter() - start
    reap_orphans(before)
    return seconds


def adopt_orphans() -> None:
    """Make this process the subreaper of everything it starts (PR_SET_CHILD_SUBREAPER): a
    process that a grading command leaves behind when it exits comes to this process instead of
    to init, so that its CPU time can be counted (``reap_orphans``)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def _children() -> set:
    import psutil

    return {child.pid for child in psutil.Process().children()}


def reap_orphans(before: set) -> None:
    """Wait for the processes a command left behind (``adopt_orphans``), so that their CPU time
    and their own children's is in this process's RUSAGE_CHILDREN as the command's is: a local
    run's pool workers are forked by multiprocessing's fork server, which the command does not
    wait for (it ends when the command has ended). Before this, the CPU time of ``--jobs 2``
    left out its workers' (~30 s of a lesson-3 class of 40), and the cluster, whose worker
    processes count all they started, seemed to cost 1.63× as much."""
    import psutil

    left = [psutil.Process(pid) for pid in _children() - before]
    _, alive = psutil.wait_procs(left, timeout=60)
    if alive:
        print(f"(not counted: {len(alive)} processes a command left running)", file=sys.stderr)


def judge_cpu(stdout: str) -> float:
    match = re.search(r"CPU used by the judge: ([0-9.]+) s", stdout)
    return float(match.group(1)) if match else float("nan")


def kernel_starts(count: int = 12) -> dict:
    """Median seconds from asking for a kernel to its first output, with and without the
    sandbox, alternated between two fork servers started side by side."""
    from kernels import run

    from autograder.instructor.kernels.services import Services

    servers = {True: Services.start(ROOT, sandbox=True), False: Services.start(ROOT, sandbox=False)}
    seconds = {True: [], False: []}
    try:
        with tempfile.TemporaryDirectory() as stage:
            for _ in range(count):
                for sandboxed, services in servers.items():
                    start = time.perf_counter()
                    run(["print(1)"], services, Path(stage))
                    seconds[sandboxed].append(time.perf_counter() - start)
    finally:
        for services in servers.values():
            services.close()
    return {key: statistics.median(values) for key, values in seconds.items()}


def grade_command(jobs: int) -> list:
    return [str(BIN / "autograder"), "grade", NAME, "--jobs", str(jobs)]


def concurrently(commands, roots, env) -> list:
    """Seconds each command took, all started together."""
    before = _children()
    start = time.perf_counter()
    procs = [subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True) for cmd, root in zip(commands, roots)]
    seconds = []
    for proc in procs:
        _, err = proc.communicate()
        seconds.append(time.perf_counter() - start)
        if proc.returncode:
            raise RuntimeError(err)
    reap_orphans(before)
    return seconds


class Postgres:
    """A fresh database on the server for each course, all dropped at the end."""

    def __init__(self, server: str):
        import sqlalchemy as sa

        self.sa, self.server, self.made = sa, server, []
        self.admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")

    def database(self) -> str:
        name = f"bench_{len(self.made)}_{os.getpid()}"
        with self.admin.connect() as conn:
            conn.execute(self.sa.text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            conn.execute(self.sa.text(f"CREATE DATABASE {name}"))
        self.made.append(name)
        return self.server.rsplit("/", 1)[0] + "/" + name

    def close(self) -> None:
        with self.admin.connect() as conn:
            for name in self.made:
                conn.execute(self.sa.text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        self.admin.dispose()


def pg_scores(url: str) -> dict:
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:
        return {s.id: {g.name: g.score for g in gb.find_submission_notebook(NAME, NAME, s.id).grades}
                for s in gb.students}


def cluster_rounds(args, subs, tmp: Path, env: dict, reference: dict | None) -> dict:
    """-j2 pg and cluster, alternated for ``args.rounds`` rounds, on one LocalCluster."""
    from distributed import LocalCluster

    keys = ("HOME", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR",
            "MPLCONFIGDIR", "TMPDIR")
    postgres = Postgres(args.postgres)
    local = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                         env={k: env[k] for k in keys}, local_directory=env["TMPDIR"])
    runs = {"-j2 pg": [], "cluster": []}
    cpu = {"-j2 pg": [], "cluster": []}
    same = True
    cluster_cmd = [str(BIN / "autograder"), "grade", NAME, "--scheduler", local.scheduler_address]
    from distributed import Client

    watcher = Client(local)
    try:
        for round_ in range(args.rounds):
            for kind in runs:
                course_env = dict(env, NBGRADER_DB_URL=postgres.database())
                root = make_course(tmp / f"{kind.replace(' ', '')}-{round_}", course_env, subs)
                before = cpu_seconds(watcher)
                runs[kind].append(timed(grade_command(2) if kind == "-j2 pg" else cluster_cmd, root, course_env))
                cpu[kind].append(cpu_seconds(watcher) - before)
                got = pg_scores(course_env["NBGRADER_DB_URL"])
                reference = reference or got
                same = same and got == reference
        # one more run of each, not timed: the memory they use
        workers = list(watcher.run(os.getpid).values())
        memory = {}
        for kind, command, roots, own in (
                ("cluster", cluster_cmd, lambda: workers, lambda process: process.pid in workers),
                ("-j2 pg", grade_command(2), _grading_command, _pool_worker)):
            course_env = dict(env, NBGRADER_DB_URL=postgres.database())
            root = make_course(tmp / f"memory-{kind.replace(' ', '')}", course_env, subs)
            memory[kind] = peak_memory(lambda: timed(command, root, course_env), roots, own)
    finally:
        watcher.close()
        local.close()
        postgres.close()
    return {"runs": runs, "cpu": cpu, "same": same, "memory": memory}


def cpu_seconds(client) -> float:
    """CPU seconds used so far by everything a grading run starts: this process's finished
    children (a command and all it waited for: judge, fork server, kernels; and what it left
    behind, ``reap_orphans``: a local run's workers), this
    process itself (where the LocalCluster's scheduler and nannies run) and the cluster's
    worker processes with their finished children. A busy machine stretches wall time; CPU
    time is what a run costs."""
    import resource

    here = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers = client.run(lambda: sum(os.times()[:4]))
    return here.ru_utime + here.ru_stime + children.ru_utime + children.ru_stime + sum(workers.values())


def peak_memory(run, roots, own) -> tuple:
    """Sampled every 0.5 s while ``run()`` grades: the peak memory of everything beneath the
    processes ``roots()`` gives (the grading processes with their judge, fork server and
    kernels; PSS: shared pages counted once across them), and the peak resident memory of one
    grading process itself (a process for which ``own(process)`` holds: what
    ``c.GradingWorker.memory_mb`` limits), in MB."""
    import threading

    import psutil

    peak, done = [0.0, 0.0], threading.Event()

    def sample():
        while not done.wait(0.5):
            total = 0
            for pid in roots():
                try:
                    top = psutil.Process(pid)
                    family = [top, *top.children(recursive=True)]
                except psutil.Error:
                    continue
                for process in family:
                    try:
                        total += process.memory_full_info().pss
                        if own(process):
                            peak[1] = max(peak[1], process.memory_info().rss / 2 ** 20)
                    except psutil.Error:
                        pass
            peak[0] = max(peak[0], total / 2 ** 20)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    try:
        run()
    finally:
        done.set()
        watcher.join()
    return tuple(peak)


def _grading_command() -> list:
    """The ``autograder grade`` this process runs, if it runs one (not the cluster's nannies)."""
    import psutil

    found = []
    for child in psutil.Process().children():
        try:
            if "grade" in child.cmdline():
                found.append(child.pid)
        except psutil.Error:  # (one that has just ended)
            continue
    return found


def _pool_worker(process) -> bool:
    """A ``--jobs`` worker: forked from multiprocessing's fork server (whose command line it keeps)."""
    parent = process.parent()
    return parent is not None and "multiprocessing.forkserver" in " ".join(parent.cmdline())


def report_cluster(measured: dict, n: int) -> None:
    for what, unit in (("runs", "wall"), ("cpu", "CPU")):
        values = measured[what]
        for kind, seconds in values.items():
            middle = statistics.median(seconds)
            print(f"{kind:9} {middle:7.1f} s {unit:4}  {middle / n:5.2f} s/submission   "
                  f"(median of {', '.join(f'{s:.1f}' for s in seconds)})")
        ratios = [c / j for c, j in zip(values["cluster"], values["-j2 pg"])]
        print(f"cluster vs -j2 pg, {unit} time: {statistics.median(ratios):.2f} × (median of the rounds' "
              f"ratios {', '.join(f'{r:.2f}' for r in ratios)}); target ≤ 1.10")
    print(f"identical per-cell scores in the cluster and -j2 pg runs: {measured['same']}")
    for kind, (family, own) in measured["memory"].items():
        print(f"{kind:9} peak memory of its grading processes with their judge, fork server and kernels: "
              f"{family:.0f} MB (PSS); of one grading process itself: {own:.0f} MB resident")
    per = statistics.median(measured["cpu"]["cluster"]) / n
    print(f"cost of one submission on the cluster: {per:.2f} s of CPU (everything the run started, worker "
          f"start-up included); N submissions in T minutes need about N × {per:.2f} / (60 × T) worker cores, "
          f"e.g. {1000 * per / 600:.1f} cores for 1,000 in 10 minutes")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3,
                        help="-j1 and -j2 runs, alternated so that both see the same machine; "
                             "medians are compared")
    parser.add_argument("--postgres", default=os.environ.get("AUTOGRADER_TEST_POSTGRES", ""),
                        help="PostgreSQL server URL for the cluster runs (default: AUTOGRADER_TEST_POSTGRES)")
    parser.add_argument("--only-cluster", action="store_true",
                        help="measure only -j2 pg and the cluster (a shorter run on a busy machine)")
    args = parser.parse_args()
    adopt_orphans()
    subs = submissions(args.students)
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = isolated_env(tmp / "home")
        if args.only_cluster:
            if not args.postgres:
                raise SystemExit("the cluster runs need a PostgreSQL server: --postgres URL (see .ci/postgres)")
            print(f"grading {args.students} submissions of {NAME} ({os.cpu_count()} cores)")
            report_cluster(cluster_rounds(args, subs, tmp, env, None), args.students)
            print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
            return
        root = stock(make_course(tmp / "plain", env, subs))
        plain = timed([str(BIN / "nbgrader"), "autograde", NAME, "--create"], root, env)
        reference = scores(root)
        root = make_course(tmp / "course", env, subs)
        course = timed([str(BIN / "nbgrader"), "autograde", NAME, "--create"], root, env)
        same_course = scores(root) == reference
        outputs: list = []
        runs = {1: [], 2: []}
        side_by_side = []
        same = True
        for round_ in range(args.rounds):
            for jobs in (1, 2):
                root = make_course(tmp / f"j{jobs}-{round_}", env, subs)
                runs[jobs].append(timed(grade_command(jobs), root, env, outputs))
                same = same and scores(root) == reference
            # the machine's own ceiling for two workers: two independent -j1 runs at once
            roots = [make_course(tmp / f"pair{i}-{round_}", env, subs) for i in (0, 1)]
            side_by_side.append(max(concurrently([grade_command(1)] * 2, roots, env)))
            same = same and all(scores(root) == reference for root in roots)
        n = args.students
        print(f"grading {n} submissions of {NAME} ({os.cpu_count()} cores)")
        print(f"{'plain':9} {plain:7.1f} s   {plain / n:5.2f} s/submission   1.00 × plain")
        print(f"{'course':9} {course:7.1f} s   {course / n:5.2f} s/submission   {course / plain:5.2f} × plain   "
              f"(same scores: {same_course})")
        for jobs, seconds in runs.items():
            middle = statistics.median(seconds)
            print(f"ours -j{jobs}  {middle:7.1f} s   {middle / n:5.2f} s/submission   "
                  f"{middle / plain:5.2f} × plain   (median of {', '.join(f'{s:.1f}' for s in seconds)})"
                  + ("; target ≤ 0.10 × plain" if jobs == 2 else ""))
        pair = statistics.median(side_by_side)
        print(f"two -j1 runs side by side: {pair:.1f} s for {2 * n} submissions "
              f"(median of {', '.join(f'{s:.1f}' for s in side_by_side)}); that is "
              f"{pair / statistics.median(runs[1]):.2f}× one run alone, so two workers can be at most "
              f"{2 * statistics.median(runs[1]) / pair:.2f}× faster than one on this machine")
        ratios = [one / two for one, two in zip(runs[1], runs[2])]
        print(f"jobs 2 vs jobs 1: {statistics.median(runs[1]) / statistics.median(runs[2]):.2f}× faster "
              f"(medians; round by round {', '.join(f'{r:.2f}' for r in ratios)})")
        total = sum(sum(cells.values()) for cells in reference.values())
        print(f"identical per-cell scores in all runs: {same} (class total {total:g} points)")
        cpu = statistics.median(judge_cpu(out) for out in outputs)
        print(f"the judge's own CPU: {cpu:.2f} s per run, {1000 * cpu / n:.0f} ms per submission (median of runs)")
        starts = kernel_starts()
        print(f"kernel start to first output: {1000 * starts[True]:.0f} ms sandboxed, {1000 * starts[False]:.0f} ms "
              f"without the sandbox: the sandbox costs {1000 * (starts[True] - starts[False]):.0f} ms per kernel")
        if args.postgres:
            report_cluster(cluster_rounds(args, subs, tmp, env, reference), n)
        else:
            print("cluster: not measured (no PostgreSQL server: set AUTOGRADER_TEST_POSTGRES or --postgres)")
        print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
