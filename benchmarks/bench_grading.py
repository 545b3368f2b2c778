"""Benchmark: grading a class of lesson-3 submissions, plain nbgrader against `autograder grade`.

Measured in one run on identical copies of the same course:
  plain     `nbgrader autograde 03_zeroing_grad` as nbgrader comes (its own passes: a fresh
            kernel per notebook, no sandbox, no judge); autograde only, feedback not included
  course    `nbgrader autograde` with this course's nbgrader_config.py (sandboxed kernels from
            its own fork server, the judge): what plain nbgrader does in this course directory
  ours -j1  `autograder grade 03_zeroing_grad --jobs 1` (autograde + feedback + export)
  ours -j2  the same with two workers
It also prints what the protection itself costs: the judge's CPU time per submission (its own
process), and the start-up of a sandboxed kernel against an unsandboxed one from the same
fork server (median of alternated starts).
-j1 and -j2 run alternately for several rounds (a shared machine's speed drifts by ±5 %
between runs a minute apart) and their medians are compared; the per-cell scores of every
run must equal plain nbgrader's. Each round also runs two independent -j1 gradings at the
same time: how much two busy cores slow each other down on this machine bounds what any
two-worker run can gain. Targets: ours -j2 ≤ 0.25 × plain; -j2 at least 1.8× faster
than -j1.

Usage: python benchmarks/bench_grading.py [--students 40] [--rounds 3]
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
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=root, env=env, check=True, capture_output=True, text=True)
    if output is not None:
        output.append(done.stdout)
    return time.perf_counter() - start


def judge_cpu(stdout: str) -> float:
    match = re.search(r"CPU used by the judge: ([0-9.]+) s", stdout)
    return float(match.group(1)) if match else float("nan")


def kernel_starts(count: int = 12) -> dict:
    """Median seconds from asking for a kernel to its first output, with and without the
    sandbox, alternated between two fork servers started side by side."""
    from autograder.instructor.services import Services
    from kernels import run

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
    start = time.perf_counter()
    procs = [subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True) for cmd, root in zip(commands, roots)]
    seconds = []
    for proc in procs:
        _, err = proc.communicate()
        seconds.append(time.perf_counter() - start)
        if proc.returncode:
            raise RuntimeError(err)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3,
                        help="-j1 and -j2 runs, alternated so that both see the same machine; "
                             "medians are compared")
    args = parser.parse_args()
    subs = submissions(args.students)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = isolated_env(tmp / "home")
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
                  f"{middle / plain:5.2f} × plain   (median of {', '.join(f'{s:.1f}' for s in seconds)})")
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


if __name__ == "__main__":
    main()
