"""Benchmark for the course. Prints figures measured in one run, each beside its baseline.

1. Run-All of each source notebook in a fresh kernel: time (kernel start excluded) and the
   kernel's peak memory. Targets: ≤ 10 s, ≤ 1 GB each (Binder gives ~1 CPU and 2 GB).
2. nbgrader autograde per submission of lesson 3, against a floor: a fresh kernel that only
   imports torch.
3. The loop grader's tracing overhead on a 200-step loop, against the same loop untraced.
   Target: ≤ 2×.
4. The length of each lesson (printed first; no kernel): words of prose, markdown cells over
   120 words, estimated minutes, for the core and apart for the optional "Going further"
   section, which is not part of the hour. The rule is tests/lesson_length.py's (150 words a
   minute, a minute a demo, 2 a question, 5-15 an exercise); targets: core ≤ 60 min and
   ≤ 2,000 words, every cell ≤ 120 words. English is the measure; the other languages'
   word counts are printed beside it (not Chinese, which has no spaces between words).

Usage: python benchmarks/bench_course.py [--students N] [--repeats R] [--length-only]
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import torch
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
import lesson_length  # noqa: E402
from catalogue import TRAIN_LOOP  # noqa: E402
from helpers import fill, isolated_env, nbgrader, read, solutions  # noqa: E402

from autograder.instructor import course  # noqa: E402
from autograder.kernel.loop.trace import LoopTracer  # noqa: E402

NOTEBOOKS = sorted((ROOT / "source").glob("*/*.ipynb"))
NB = ROOT / "source" / "03_zeroing_grad" / "03_zeroing_grad.ipynb"
PEAK = "import resource; print('PEAK_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"


def run_all(nb, env, workdir) -> tuple[float, float]:
    """Seconds to execute every cell in a started kernel, and the kernel's peak RSS in MB."""
    nb = nbformat.from_dict(nb)
    nb.cells.append(new_code_cell(PEAK))
    client = NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(workdir)}})
    with client.setup_kernel(env=env):
        start = time.perf_counter()
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        elapsed = time.perf_counter() - start
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    peak_kb = int(text.split("PEAK_KB")[1].split()[0])
    return elapsed, peak_kb / 1024


def fresh_kernel_seconds(source: str, env, workdir) -> float:
    """Wall time of a fresh kernel that runs one cell: kernel start included."""
    nb = new_notebook(cells=[new_code_cell(source)])
    start = time.perf_counter()
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(workdir)}}).execute(env=env)
    return time.perf_counter() - start


def autograde_seconds(students: int, env, tmp: Path) -> float:
    course = tmp / "course"
    shutil.copy(ROOT / "nbgrader_config.py", course.mkdir() or course)
    shutil.copytree(ROOT / "source", course / "source")
    nbgrader(["generate_assignment", "03_zeroing_grad", "--force"], course, env)
    release = read(course / "release/03_zeroing_grad/03_zeroing_grad.ipynb")
    solved = fill(release, solutions(read(NB)))
    for i in range(students):
        folder = course / "submitted" / f"s{i:03d}" / "03_zeroing_grad"
        folder.mkdir(parents=True)
        nbformat.write(solved, str(folder / "03_zeroing_grad.ipynb"))
    start = time.perf_counter()
    nbgrader(["autograde", "03_zeroing_grad", "--create"], course, env)
    return (time.perf_counter() - start) / students


def tracing_overhead(steps: int, repeats: int) -> tuple[float, float]:
    """Median seconds of a bare and a traced 200-step loop on a small MLP.

    The loop is the catalogue's canonical student solution."""
    student_loop = TRAIN_LOOP[0].load()
    gen = torch.Generator().manual_seed(0)
    batches = [(torch.randn(64, 32, generator=gen), torch.randn(64, 1, generator=gen))
               for _ in range(steps)]

    def setup():
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                              nn.Linear(128, 1))
        return model, torch.optim.SGD(model.parameters(), lr=0.01), nn.MSELoss()

    bare, traced = [], []
    for _ in range(repeats):
        model, opt, loss_fn = setup()
        start = time.perf_counter()
        student_loop(model, opt, loss_fn, batches)
        bare.append(time.perf_counter() - start)
        model, opt, loss_fn = setup()
        tracer = LoopTracer(model, opt, [x for x, _ in batches])
        start = time.perf_counter()
        trace = tracer.run(student_loop, model, opt, loss_fn, batches)
        traced.append(time.perf_counter() - start)
        assert trace.error is None and len(trace.steps) == steps
    return statistics.median(bare), statistics.median(traced)


def print_lengths() -> None:
    """Section 4: each lesson's words and estimated minutes (core, then Going further)."""
    L = lesson_length
    print(f"== 4. length of each lesson ({L.WORDS_PER_MINUTE} words/min, {L.DEMO_MINUTES} min a demo, "
          f"{L.QUESTION_MINUTES} a question, {L.EXERCISE_MINUTES[0]}-{L.EXERCISE_MINUTES[1]} an exercise) ==")
    print("Going further (optional, ungraded) is counted apart and is not part of the hour.")
    print(f"{'notebook':18} {'part':8} {'words':>6} {'>120':>5} {'longest cell':>24} {'demos':>6} "
          f"{'quest':>6} {'exerc':>6} {'minutes':>8}   (targets: core ≤ {L.MAX_MINUTES} min, "
          f"≤ {L.MAX_WORDS} words, cells ≤ {L.MAX_CELL_WORDS})")
    langs = [lang for lang in course.available() if lang not in ("en", "zh")]
    summary = []
    for path in NOTEBOOKS:
        nb = read(path)
        parts = L.measure(nb)
        summary.append((path.stem, parts["core"].minutes, parts["further"].minutes))
        for label, part in parts.items():  # a lesson without a Going further section shows 0 there
            over = sum(n > L.MAX_CELL_WORDS for n in part.cells.values())
            n, cid = part.longest
            longest = f"{cid} ({n})" if cid else "-"
            print(f"{path.stem:18} {label:8} {part.words:6} {over:5} {longest:>24} "
                  f"{part.demos:6} {part.questions:6} {sum(part.exercise_minutes):6} "
                  f"{part.minutes:8.1f}")
        others = []
        for lang in langs:
            translated = L.measure(nb, course.read_prose(lang, path.stem))
            others.append(f"{lang} {translated['core'].words}+{translated['further'].words}")
        print(f"{'':18} words core+further by language: " + ", ".join(others))
    print(f"{'minutes':18} {'core':>8} {'further':>8}   (core ≤ {L.MAX_MINUTES}; further is optional)")
    for stem, core, further in summary:
        print(f"{stem:18} {core:8.1f} {further:8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--length-only", action="store_true",
                        help="print only the lessons' lengths (section 4), which needs no kernel")
    args = parser.parse_args()
    print_lengths()
    if args.length_only:
        return
    torch.set_num_threads(1)  # Binder gives one CPU

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = isolated_env(tmp / "home")
        env["OMP_NUM_THREADS"] = "1"  # Binder gives one CPU
        fresh_kernel_seconds("import matplotlib.pyplot", env, tmp)  # font cache, once

        print("== 1. Run-All of each notebook (kernel already started; best of 2) ==")
        print(f"{'notebook':22} {'time':>8} {'peak RSS':>10}   (targets ≤ 10 s, ≤ 1024 MB)")
        for path in NOTEBOOKS:
            runs = [run_all(read(path), env, tmp) for _ in range(2)]
            seconds, peak = min(r[0] for r in runs), max(r[1] for r in runs)
            print(f"{path.stem:22} {seconds:6.2f} s {peak:7.0f} MB")

        print("== 2. nbgrader autograde of 03_zeroing_grad, per submission ==")
        floor = fresh_kernel_seconds("import torch", env, tmp)
        per = autograde_seconds(args.students, env, tmp)
        print(f"floor: fresh kernel + import torch   {floor:6.2f} s")
        print(f"autograde per submission ({args.students} students)  {per:6.2f} s   "
              f"= {per / floor:.2f} × floor")

    print("== 3. tracing overhead, 200-step loop (MLP 32-128-128-1, batch 64) ==")
    bare, traced = tracing_overhead(200, args.repeats)
    print(f"bare loop   {bare * 1000:7.1f} ms")
    print(f"traced loop {traced * 1000:7.1f} ms   = {traced / bare:.2f} × bare   (target ≤ 2×)")


if __name__ == "__main__":
    main()
