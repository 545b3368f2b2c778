"""The whole cycle of an assignment through nbgrader's own exchange, as on a JupyterHub:
the instructor and every student have their own home and Jupyter configuration (one OS
user here, so each student's id comes from their own nbgrader_config.py), and the
exchange is a local folder.

instructor: generate_assignment, release_assignment
students:   fetch_assignment, fill in the notebook, submit
            alice right; carol right, then again with a wrong loop (the second counts);
            dan a file that is not a notebook; bob right but after the due date
instructor: collect, autograder grade, a comment on carol's loop (what formgrader
            stores), generate_feedback --force, release_feedback
students:   fetch_feedback, and read their own feedback

The grades are compared with plain ``nbgrader autograde`` on the same collected
submissions, and the late penalty with nbgrader's documented rule ('zero': the penalty is
the score).
"""
from __future__ import annotations

import datetime
import re
import shutil
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import catalogue
import nbformat
import pytest
from helpers import ROOT, exchange_home, fill, generate, nbgrader, page_text, points, read, solutions
from nbgrader.api import Gradebook
from nbgrader.utils import parse_utc
from test_class_grading import autograder

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]
NAME = "03_zeroing_grad"
COURSE = "autograd-lessons"  # nbgrader_config.py's course id
COMMENT = "See step 2: move optimizer.zero_grad() into the loop."
LATE_POLICY = 'c.LateSubmissionPlugin.penalty_method = "zero"\n'
FULL = sum(points(NAME).values())  # the lesson's points
LOOP = points(NAME)["train_loop_tests"]


def make_course(root: Path, env: dict, policy: str = LATE_POLICY) -> Path:
    root.mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", root)
    with open(root / "nbgrader_config.py", "a") as f:
        f.write("\n# this course's late policy\n" + policy)
    shutil.copytree(ROOT / "source" / NAME, root / "source" / NAME)
    generate(root, env, NAME)
    return root


def submit(home: Path, env: dict, notebook) -> str:
    """Save the student's notebook (a NotebookNode, or text), submit it; its timestamp."""
    path = home / NAME / f"{NAME}.ipynb"
    if isinstance(notebook, str):
        path.write_text(notebook)
    else:
        nbformat.write(notebook, str(path))
    out = nbgrader(["submit", NAME], home, env).stderr
    return re.search(rf"Submitted as: {COURSE} {NAME} (.+)$", out, re.M).group(1).strip()


def each_student(students: dict, command: str) -> None:
    """Every student runs ``nbgrader <command>`` in their own home, at the same time."""
    with ThreadPoolExecutor(len(students)) as pool:
        list(pool.map(lambda who: nbgrader([command, NAME], *who), students.values()))


def graded(root: Path) -> dict:
    """student → (timestamp, seconds late, penalty, {cell: score}) from the gradebook."""
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        result = {}
        for s in gb.find_assignment(NAME).submissions:
            cells = {g.name: g.score for nb in s.notebooks for g in nb.grades}
            result[s.student.id] = (s.timestamp, s.total_seconds_late, s.late_submission_penalty, cells)
        return result


@pytest.fixture(scope="module")
def cycle(tmp_path_factory):
    base = tmp_path_factory.mktemp("hub")
    exchange = base / "exchange"
    exchange.mkdir()
    exchange.chmod(0o777)
    # every process here is the same OS user, so the owner check would pass over every
    # submission (tests/test_collect.py and the hub test check it with real users); nbgrader's
    # warning names CollectApp.check_owner, which nothing reads: the trait is ExchangeCollect's
    instructor = exchange_home(base / "instructor", exchange, COURSE,
                               extra="c.ExchangeCollect.check_owner = False\n")
    course = make_course(base / "course", instructor)
    nbgrader(["release_assignment", NAME], course, instructor)

    source = read(course / "source" / NAME / f"{NAME}.ipynb")
    right = solutions(source)
    wrong = dict(right, train_loop=textwrap.dedent(next(
        e for e in catalogue.TRAIN_LOOP if e.name == "cleared_once_before_loop").source).strip())
    students, stamps = {}, {}
    for name in ("alice", "bob", "carol", "dan"):
        env = exchange_home(base / name, exchange, COURSE, student=name)
        students[name] = (Path(env["HOME"]), env)
    each_student(students, "fetch_assignment")
    fetched = read(students["alice"][0] / NAME / f"{NAME}.ipynb")
    released = read(course / "release" / NAME / f"{NAME}.ipynb")
    assert [c.source for c in fetched.cells] == [c.source for c in released.cells]

    def notebook_of(name, answers):
        return fill(read(students[name][0] / NAME / f"{NAME}.ipynb"), answers)

    stamps["alice"] = submit(*students["alice"], notebook_of("alice", right))
    first_carol = submit(*students["carol"], notebook_of("carol", right))
    stamps["carol"] = submit(*students["carol"], notebook_of("carol", wrong))
    stamps["dan"] = submit(*students["dan"], "{ this is not a notebook")
    # The due date falls after these and before bob's submission (a date fixed at release
    # would race the clock of a slow machine; nbgrader's timestamps have microseconds).
    due = datetime.datetime.now(datetime.timezone.utc)
    nbgrader(["db", "assignment", "add", NAME, f"--duedate={due:%Y-%m-%d %H:%M:%S.%f} UTC"], course, instructor)
    stamps["bob"] = submit(*students["bob"], notebook_of("bob", right))

    nbgrader(["collect", NAME], course, instructor)
    collected = base / "collected"  # the course as collected, before any grading
    shutil.copytree(course, collected)

    autograder(["grade", NAME, "--jobs", "2"], course, instructor)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:  # what formgrader stores
        gb.find_comment("train_loop", NAME, NAME, "carol").manual_comment = COMMENT
        gb.db.commit()
    nbgrader(["generate_feedback", NAME, "--force"], course, instructor)
    nbgrader(["release_feedback", NAME], course, instructor)
    each_student(students, "fetch_feedback")

    return SimpleNamespace(base=base, course=course, collected=collected, instructor=instructor,
                           students=students, stamps=stamps, first_carol=first_carol, due=due)


def feedback_folders(cycle, student) -> dict:
    home = cycle.students[student][0]
    return {p.name: p for p in (home / NAME / "feedback").iterdir()}


def feedback(cycle, student) -> str:
    return page_text(feedback_folders(cycle, student)[cycle.stamps[student]] / f"{NAME}.html")


def test_each_student_fetches_the_feedback_of_their_graded_submission(cycle):
    for student in ("alice", "bob", "carol", "dan"):
        assert list(feedback_folders(cycle, student)) == [cycle.stamps[student]], student
    assert f"(Score: {FULL:.1f} / {FULL:.1f})" in feedback(cycle, "alice")
    carol = feedback(cycle, "carol")
    assert f"(Score: {FULL - LOOP:.1f} / {FULL:.1f})" in carol and "cleared only once" in carol
    assert COMMENT in carol  # the instructor's comment, after generate_feedback --force
    bob = feedback(cycle, "bob")
    assert f"Late submission penalty (Score: -{FULL:.1f})" in bob and f"(Score: 0.0 / {FULL:.1f})" in bob
    assert "not a valid notebook" in feedback(cycle, "dan")
    for student in ("alice", "bob", "carol"):
        text = feedback(cycle, student)
        assert "HIDDEN TESTS" not in text and 'cases="hidden"' not in text
        assert "Late submission penalty" not in text or student == "bob"
        assert COMMENT not in text or student == "carol"


def test_the_latest_submission_is_the_one_graded(cycle):
    carol = graded(cycle.course)["carol"]
    assert cycle.first_carol < cycle.stamps["carol"]
    assert carol[0] == parse_utc(cycle.stamps["carol"])
    assert carol[3]["train_loop_tests"] == 0 and sum(carol[3].values()) == FULL - LOOP
    collected = read(cycle.course / "submitted" / "carol" / NAME / f"{NAME}.ipynb")
    loop = next(c for c in collected.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "train_loop")
    assert loop.source.index("zero_grad()") < loop.source.index("for ")  # the wrong one


def test_late_penalty_follows_nbgraders_rule(cycle):
    grades = graded(cycle.course)
    timestamp, late, penalty, cells = grades["bob"]
    assert timestamp == parse_utc(cycle.stamps["bob"]) and late > 0
    assert sum(cells.values()) == FULL and penalty == FULL  # 'zero': the penalty is the score
    for student in ("alice", "carol"):
        assert grades[student][1] == 0 and not grades[student][2], student
    with open(cycle.course / "grades.csv") as f:  # the export autograder grade wrote
        rows = {line.split(",")[3]: line.strip().split(",") for line in f.readlines()[1:]}
    assert float(rows["bob"][-2]) == 0.0 and float(rows["alice"][-2]) == FULL


def without_the_course_policy(cycle, name: str) -> Path:
    """A copy of the course as collected whose own configuration has no late policy."""
    root = cycle.base / name
    shutil.copytree(cycle.collected, root)
    config = root / "nbgrader_config.py"
    config.write_text(config.read_text().replace(LATE_POLICY, ""))
    return root


@pytest.fixture(scope="module")
def own_policy(cycle) -> dict:
    """The environment of an instructor whose own ~/.jupyter/nbgrader_config.py holds the late
    policy (and not the course's)."""
    return exchange_home(cycle.base / "instructor2", cycle.base / "exchange", COURSE, extra=LATE_POLICY)


@pytest.fixture(scope="module")
def plain(cycle, own_policy) -> dict:
    """The course as collected, graded by plain ``nbgrader autograde`` (``graded``), the late
    policy in the instructor's own configuration: the reference autograder's grades are compared
    with, and the proof that nbgrader honours a policy there: one run serves both tests (each ran
    nbgrader autograde of its own)."""
    root = without_the_course_policy(cycle, "plain")
    nbgrader(["autograde", NAME], root, own_policy, check=False)  # dan fails there
    return graded(root)


def test_autograder_gives_what_plain_nbgrader_gives(cycle, plain):
    """(The same policy, read from the course's configuration here, from the instructor's there.)"""
    ours, theirs = graded(cycle.course), plain
    for student in ("alice", "bob", "carol"):
        assert ours[student][0] == theirs[student][0], student  # timestamp
        assert ours[student][1] == theirs[student][1], student  # seconds late
        assert (ours[student][2] or 0) == (theirs[student][2] or 0), student  # penalty
        assert ours[student][3] == theirs[student][3], student  # every cell's score


def test_late_policy_in_the_instructors_own_configuration(cycle, own_policy, plain):
    """A policy nbgrader applies from the instructor's ~/.jupyter/nbgrader_config.py."""
    root = without_the_course_policy(cycle, "home-policy-autograder")
    autograder(["grade", NAME, "--student", "bob", "--no-export"], root, own_policy)
    assert plain["bob"][2] == FULL  # nbgrader honours it
    assert graded(root)["bob"][2] == FULL
