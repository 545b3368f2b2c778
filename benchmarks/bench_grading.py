"""Benchmark: grading a class of lesson-3 submissions, plain nbgrader against `autograder grade`.

Measured in one run on identical copies of the same course:
  plain     `nbgrader autograde 03_zeroing_grad` (autograde only; feedback not included)
  ours -j1  `autograder grade 03_zeroing_grad --jobs 1` (autograde + feedback + export)
  ours -j2  the same with two workers
and the per-cell scores of all three are compared. Targets: ours -j2 ≤ 0.25 × plain;
-j2 at least 1.8× faster than -j1.

Usage: python benchmarks/bench_grading.py [--students 40]
"""
from __future__ import annotations

import argparse
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


def timed(cmd, root, env) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=root, env=env, check=True, capture_output=True, text=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=40)
    args = parser.parse_args()
    subs = submissions(args.students)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = isolated_env(tmp / "home")
        runs = {}
        for label, cmd in [
            ("plain", [str(BIN / "nbgrader"), "autograde", NAME, "--create"]),
            ("ours -j1", [str(BIN / "autograder"), "grade", NAME, "--jobs", "1"]),
            ("ours -j2", [str(BIN / "autograder"), "grade", NAME, "--jobs", "2"]),
        ]:
            root = make_course(tmp / label.replace(" ", ""), env, subs)
            seconds = timed(cmd, root, env)
            runs[label] = (seconds, scores(root))
        plain = runs["plain"][0]
        print(f"grading {args.students} submissions of {NAME} (2 cores)")
        for label, (seconds, _) in runs.items():
            print(f"{label:9} {seconds:7.1f} s   {seconds / args.students:5.2f} s/submission   "
                  f"{seconds / plain:5.2f} × plain")
        print(f"jobs 2 vs jobs 1: {runs['ours -j1'][0] / runs['ours -j2'][0]:.2f}× faster")
        same = runs["plain"][1] == runs["ours -j1"][1] == runs["ours -j2"][1]
        total = sum(sum(cells.values()) for cells in runs["plain"][1].values())
        print(f"identical per-cell scores in all three runs: {same} (class total {total:g} points)")


if __name__ == "__main__":
    main()
