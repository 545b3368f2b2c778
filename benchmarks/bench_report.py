"""Benchmark: writing the class report of a large class.

A made-up class of lesson 3 (the real grade cells and points): every student has a gradebook
submission with scores and an autograded notebook (the released notebook, about 50 kB, with a
verdict on each failed test cell), half of them with a mistake. It prints the time
`report.write_all` takes for lesson 3's page and the course page (what `autograder grade`
adds at the end of a run, in a worker that has nbgrader loaded already), per student, the
pages' sizes, and the time of the whole `autograder report 03_zeroing_grad` command (a new
process: Python, nbgrader's import, then the same work). Median of three.

Usage: python benchmarks/bench_report.py [--students 200]
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from helpers import BIN, isolated_env  # noqa: E402

NAME = "03_zeroing_grad"
MISTAKES = [("never_cleared", "loop.not_implemented", {"name": "train"}),
            ("cleared_once", "loop.not_implemented", {"name": "train"}),
            ("wrong_choice", "quiz.wrong", {"question": "l3_q1", "got": "a"}),
            ("unanswered", "quiz.unanswered", {"question": "l3_q2", "choices": "a, b, c, d", "got": "None"})]


def make_class(root: Path, students: int) -> None:
    from nbgrader.api import Gradebook

    from autograder.instructor.grading import worker

    worker.quiet_add_submission()
    root.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "source", root / "source")
    release = json.loads((ROOT / "release" / NAME / f"{NAME}.ipynb").read_text())
    cells = [(c["metadata"]["nbgrader"]["grade_id"], c["metadata"]["nbgrader"]["points"]) for c in release["cells"]
             if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
    rng = random.Random(0)
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "autograd-lessons") as gb:
        gb.add_assignment(NAME)
        gb.add_notebook(NAME, NAME)
        for name, points in cells:
            gb.add_grade_cell(name, NAME, NAME, max_score=points, cell_type="code")
        for i in range(students):
            student = f"student{i:04d}"
            gb.add_student(student)
            submission = gb.add_submission(NAME, student)
            wrong = {name for name, _ in cells if rng.random() < 0.15}
            for grade in submission.notebooks[0].grades:
                grade.auto_score = 0 if grade.name in wrong else grade.max_score
            gb.db.commit()
            nb = json.loads(json.dumps(release))
            for cell in nb["cells"]:
                grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                if grade_id in wrong:
                    mistake, key, fields = rng.choice(MISTAKES)
                    cell["metadata"]["autograder"] = {"verdict": {"ok": False, "mistake": mistake, "key": key,
                                                                  "fields": fields}}
            folder = root / "autograded" / student / NAME
            folder.mkdir(parents=True)
            (folder / f"{NAME}.ipynb").write_text(json.dumps(nb))
            feedback = root / "feedback" / student / NAME
            feedback.mkdir(parents=True)
            (feedback / f"{NAME}.html").write_text("<p>feedback</p>")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=200)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as stage:
        root = Path(stage) / "course"
        started = time.perf_counter()
        make_class(root, args.students)
        print(f"made a class of {args.students} students in {time.perf_counter() - started:.1f} s")
        from autograder.instructor.course_config import course_config
        from autograder.instructor.reports import pages as report

        config = course_config(root)
        seconds = []
        for _ in range(3):
            started = time.perf_counter()
            pages = report.write_all(root, config, [NAME])
            seconds.append(time.perf_counter() - started)
        in_worker = statistics.median(seconds)
        sizes = ", ".join(f"{page.name} {page.stat().st_size / 1024:.0f} kB" for page in pages)
        print(f"report.write_all (lesson 3 + course page): {in_worker:.2f} s, "
              f"{1000 * in_worker / args.students:.1f} ms per student; {sizes}")
        env = isolated_env(Path(stage) / "home")
        seconds = []
        for _ in range(3):
            started = time.perf_counter()
            subprocess.run([str(BIN / "autograder"), "report", NAME], cwd=root, env=env, check=True,
                           capture_output=True)
            seconds.append(time.perf_counter() - started)
        print(f"`autograder report {NAME}` (a new process): {statistics.median(seconds):.2f} s")


if __name__ == "__main__":
    main()
