"""`autograder grade` on a real course: hostile and broken submissions, identical scores to
plain `nbgrader autograde`, feedback, export, regrading one student, jobs 1 vs 2."""
from __future__ import annotations

import csv
import html as html_text
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import catalogue
import nbformat
import pytest
from helpers import BIN, ROOT, fill, generate, isolated_env, nbgrader, points, read, solutions
from hostile import ALL, HOSTILE, NOT_PLAIN
from nbgrader.api import Gradebook

pytestmark = pytest.mark.slow
NAME = "03_zeroing_grad"
TESTS = set(points(NAME))  # the graded test cells, as the source notebook says
FULL_MARKS = sum(points(NAME).values())


def make_course(root, env, submissions: dict, generated: Path | None = None):
    """A course with lesson 3 generated and the given submissions (student → notebook, text or None).
    ``generated``: a course whose release folder to copy instead of generating it here (its
    gradebook, on a database server, copied by the caller: test_cluster)."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "source", root / "source")
    if generated is None:
        generate(root, env, NAME)
    else:
        shutil.copytree(generated / "release" / NAME, root / "release" / NAME)
    for student, content in submissions.items():
        folder = root / "submitted" / student / NAME
        folder.mkdir(parents=True)
        if isinstance(content, str):
            (folder / f"{NAME}.ipynb").write_text(content)
        elif content is not None:
            nbformat.write(content, str(folder / f"{NAME}.ipynb"))
    return root


def notebooks():
    release = read(ROOT / "release" / NAME / f"{NAME}.ipynb")
    right = solutions(read(ROOT / "source" / NAME / f"{NAME}.ipynb"))
    wrong_loop = textwrap.dedent(next(e for e in catalogue.TRAIN_LOOP
                                      if e.name == "cleared_once_before_loop").source).strip()
    return {"alice": fill(release, right), "bob": release,
            "carol": fill(release, dict(right, train_loop=wrong_loop))}


def autograder(args, root, env, stderr: bool = False):
    """``autograder ARGS`` in ``root``: what it printed (and, with ``stderr``, its stderr)."""
    result = subprocess.run([str(BIN / "autograder"), *args], cwd=root, env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    return (result.stdout, result.stderr) if stderr else result.stdout


def scores(root) -> dict:
    """student → {test cell → score}, straight from the gradebook."""
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        return {s.id: {g.name: g.score for g in gb.find_submission_notebook(NAME, NAME, s.id).grades}
                for s in gb.students}


def hostile_submissions() -> dict:
    """The three students of ``notebooks()`` and every hostile submission of hostile.py."""
    good = notebooks()
    submissions = dict(good)
    for student, (make, _) in HOSTILE.items():
        submissions[student] = make(good["alice"]) if callable(make) else make
    return submissions


def grade_hostile_class(folder: Path) -> tuple:
    """``hostile_submissions()``, and alice's notebook in folders not named by a plain id
    (``NOT_PLAIN``), graded with ``autograder grade --jobs 2``: (course root, env, stdout,
    stderr, the scores right after). conftest's ``hostile_course`` grades it once a session."""
    env = isolated_env(folder / "home")
    submissions = hostile_submissions()
    root = make_course(folder / "course", env, {**submissions, **{name: submissions["alice"] for name in NOT_PLAIN}})
    output, stderr = autograder(["grade", NAME, "--jobs", "2", "--timeout", "10"], root, env, stderr=True)
    return root, env, output, stderr, scores(root)


@pytest.fixture(scope="module")
def plain_course(tmp_path_factory):
    """The same good submissions graded by plain `nbgrader autograde`, same timeout."""
    env = isolated_env(tmp_path_factory.mktemp("home"))
    root = make_course(tmp_path_factory.mktemp("plain"), env, notebooks())
    nbgrader(["autograde", NAME, "--create", "--Execute.timeout=10"], root, env)
    return root


@pytest.mark.parametrize("student", sorted(HOSTILE))
def test_bad_input_costs_only_its_own_points(hostile_course, student):
    lost = {cell for cell, score in hostile_course[4][student].items() if score == 0}
    expected = HOSTILE[student][1]
    assert lost == (TESTS if expected is ALL else expected), hostile_course[2]


def test_other_students_get_exactly_what_plain_nbgrader_gives(hostile_course, plain_course):
    ours, plain = hostile_course[4], scores(plain_course)
    for student in ("alice", "bob", "carol"):
        assert ours[student] == plain[student], student
    assert sum(ours["alice"].values()) == FULL_MARKS and sum(ours["bob"].values()) == 0


def test_gradebook_is_consistent(hostile_course):
    root = hostile_course[0]
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        assert {s.id for s in gb.students} == set(HOSTILE) | {"alice", "bob", "carol"}
        for student in gb.students:
            submission = gb.find_submission(NAME, student.id)
            grades = submission.notebooks[0].grades
            assert {g.name for g in grades} == TESTS
            assert all(g.score is not None and not g.needs_manual_grade for g in grades), student.id
    with open(root / "grades.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert len(rows) == len(HOSTILE) + 4 and all(len(row) == len(rows[0]) for row in rows)
    assert {row[rows[0].index("student_id")] for row in rows[1:]} == set(HOSTILE) | {"alice", "bob", "carol"}


def test_grading_leaves_nothing_of_the_students_outside_the_course(hostile_course):
    """No student's code (or hidden test) in the instructor's IPython history, where the next
    student's kernel could read it; no scratch folders left; the kernels' log kept with the others."""
    root, env, *_ = hostile_course
    assert not list(Path(env["IPYTHONDIR"]).rglob("history.sqlite"))
    left = [p.name for p in Path(env["TMPDIR"]).iterdir()]
    assert [name for name in left if not name.startswith("torchinductor_")] == []  # torch's own (empty) cache
    assert (root / "autograder-logs" / NAME / "servers.log").is_file()


@pytest.mark.parametrize("student,words", [
    ("not_json", "not a valid notebook"),
    ("empty_file", "not a valid notebook"),
    ("missing_notebook", "No notebook 03_zeroing_grad.ipynb was submitted"),
    ("too_large", "the file is larger than grading takes (40 MB)"),
    ("exits_the_process", "stopped while this cell ran"),
    ("segfaults", "stopped while this cell ran"),
    ("loops_forever", "CellTimeoutError"),
    ("carol", "cleared only once"),
])
def test_feedback_says_why(hostile_course, student, words):
    html = (hostile_course[0] / "feedback" / student / NAME / f"{NAME}.html").read_text()
    assert words in html_text.unescape(html)
    assert "HIDDEN TESTS" not in html and "cases=&quot;hidden&quot;" not in html


def test_summary_names_the_common_mistakes_in_words(hostile_course):
    output = hostile_course[2]
    assert "Most common mistakes" in output and "cleared the gradients only once, before the loop" in output
    assert "not_json: the file is not a valid notebook" in output or \
        "not_json: Your notebook 03_zeroing_grad.ipynb could not be graded: the file is not a valid notebook" in output
    assert "loop.cleared_once" not in output and "SAWarning" not in output


def test_folders_not_named_by_a_plain_id_are_named_and_not_graded(hostile_course):
    """A folder name becomes a student id everywhere (the gradebook, file names, pages, exports):
    those that are not plain ids are named in the summary, exactly (as Python writes a string:
    every odd character visible), with why, and not graded; the others are (above)."""
    root, _, output, *_ = hostile_course
    for name in NOT_PLAIN:
        line = next(line for line in output.splitlines() if line.startswith(f"  {name!r}: not graded: "))
        assert "is not accepted (it is" in line and f"submitted/<that folder>/{NAME}" in line, line
        for place in ("autograded", "feedback", f"autograder-logs/{NAME}/graded", f"autograder-logs/{NAME}/students"):
            # (no plain id of the class starts as any of them does)
            assert not [p for p in (root / place).iterdir() if p.name.startswith(name[:3])], (name, place)


def test_nothing_a_student_chose_reaches_the_terminal_as_a_control_character(hostile_course):
    """An error's class name and text full of escape sequences (clear the screen, set the
    window's title, go up a line, CSI, a carriage return, a right-to-left override) and folder
    names holding them: nothing reaches the terminal but text, and the class report names the
    error by what is left of its name."""
    root, _, output, stderr, _ = hostile_course
    controls = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
    assert not controls.search(output + stderr), [line for line in (output + stderr).splitlines() if controls.search(line)]
    page = html_text.unescape((root / "reports" / f"{NAME}.html").read_text())
    assert "the test cell failed with Zzok   fine" in page and "pwned" not in page
    # (but in the name of a folder not graded, shown as Python writes it: escapes as visible text)
    assert all(line.startswith("  '\\x1b[2J") for line in output.splitlines() if "pwned" in line)


def test_the_terminal_shows_the_progress_bar_and_no_warning(hostile_course):
    """On stderr, while grading a class with a new student in every submission: only the
    progress bar (nbgrader's API once warned six times per new student)."""
    lines = [line for line in hostile_course[3].replace("\r", "\n").splitlines() if line.strip()]
    other = [line for line in lines if not re.fullmatch(r"\[[#.]{30}\] \d+/\d+ graded, \d+ failed, .*", line)]
    assert other == [] and len(lines) == len(HOSTILE) + 3, other


def test_the_class_report(hostile_course):
    root, _, output, *_ = hostile_course
    page = root / "reports" / f"{NAME}.html"
    assert f"class report: {page}" in output and (root / "reports" / "course.html").is_file()
    text = page.read_text()
    failed = text[text.index("could not be graded</h2>"):text.index("Exercises and their mistakes")]
    for student, why in {"not_json": "not a notebook", "empty_file": "not a notebook",
                         "missing_notebook": "no notebook was submitted",
                         "too_large": "larger than 40 MB and was not read"}.items():
        assert re.search(f"<td>{student}</td><td>[^<]*{why}", failed), student
    assert failed.count("<tr>") == 5  # the heading and those four
    loop = text[text.index("<code>train_loop_tests</code> <span"):]
    loop = loop[:loop.index("</section>")]
    row = re.search(r"cleared the gradients only once, before the loop.*?</tr>", loop, re.S).group(0)
    assert '<a href="../feedback/carol/03_zeroing_grad/03_zeroing_grad.html">carol</a>' in row
    assert "step 2 (line" in row  # carol's message, in words


def test_regrade_one_student_leaves_the_others_alone(hostile_course):
    root, env, *_ = hostile_course
    before = scores(root)
    stamps = {s: os.stat(root / "autograded" / s / NAME / f"{NAME}.ipynb").st_mtime_ns
              for s in ("alice", "bob")}
    fixed = notebooks()["alice"]
    nbformat.write(fixed, str(root / "submitted" / "carol" / NAME / f"{NAME}.ipynb"))
    autograder(["grade", NAME, "--student", "carol", "--timeout", "10"], root, env)
    after = scores(root)
    assert sum(after["carol"].values()) == FULL_MARKS
    assert {s: v for s, v in after.items() if s != "carol"} == \
        {s: v for s, v in before.items() if s != "carol"}
    for student, stamp in stamps.items():
        assert os.stat(root / "autograded" / student / NAME / f"{NAME}.ipynb").st_mtime_ns == stamp


def test_a_second_run_grades_nothing_that_has_not_changed(hostile_course):
    """`autograder grade` again, naming nobody: every submission was graded (or recorded as not
    gradable for a reason in its own files) and none changed, so none is graded again."""
    root, env, *_ = hostile_course
    before = scores(root)
    notebooks_before = {p: p.stat().st_mtime_ns for p in (root / "autograded").rglob("*.ipynb")}
    output = autograder(["grade", NAME, "--timeout", "10"], root, env)
    assert f"{len(before)} submissions unchanged since they were graded were skipped" in output, output
    assert f"{NAME}: 0 submissions graded" in output
    assert scores(root) == before
    assert {p: p.stat().st_mtime_ns for p in (root / "autograded").rglob("*.ipynb")} == notebooks_before


def test_one_and_two_workers_agree(tmp_path, hostile_course):
    """The three students graded alone by one worker get what two workers gave them among the
    hostile class."""
    env = isolated_env(tmp_path / "home")
    root = make_course(tmp_path / "jobs1", env, notebooks())
    autograder(["grade", NAME, "--jobs", "1", "--timeout", "10", "--no-export"], root, env)
    alone = scores(root)
    assert set(alone) == {"alice", "bob", "carol"}
    assert alone == {student: hostile_course[4][student] for student in alone}
