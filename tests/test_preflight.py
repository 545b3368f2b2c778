"""`autograder grade` and `autograder report` tried as a new instructor would, wrongly: each
mistake ends in one sentence that says what to do (no traceback), before any server or
kernel starts, and a mistyped name never writes to the gradebook."""
from __future__ import annotations

import hashlib
import shutil
import subprocess

import pytest
from helpers import BIN, ROOT, isolated_env
from nbgrader.api import Gradebook

from autograder.instructor import cli
from autograder.instructor import preflight

NAME = "03_zeroing_grad"
STUDENTS = ("alice", "bob", "carol")


@pytest.fixture(scope="module")
def gradebooks(tmp_path_factory, new_gradebook):
    """Two gradebooks: one that knows the assignment (as after `nbgrader generate_assignment`),
    one that does not."""
    folder = tmp_path_factory.mktemp("gradebooks")
    for kind in ("generated", "bare"):
        with Gradebook(new_gradebook(folder / f"{kind}.db")) as gb:
            if kind == "generated":
                gb.add_assignment(NAME)
            gb.add_student("alice")
    return folder


@pytest.fixture
def make_course(gradebooks):
    return lambda root, **kwargs: _course(root, gradebooks, **kwargs)


def _course(root, gradebooks, gradebook=True, generated=True, submissions=STUDENTS):
    """A course folder: the configuration, lesson 3's source folder, a gradebook and the
    submitted folders."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "nbgrader_config.py", root)
    (root / "source" / NAME).mkdir(parents=True)
    (root / "source" / "01_requires_grad").mkdir()
    if gradebook:
        shutil.copy(gradebooks / ("generated.db" if generated else "bare.db"), root / "gradebook.db")
    for student in submissions:
        (root / "submitted" / student / NAME).mkdir(parents=True)
    return root


def fingerprint(root) -> str:
    path = root / "gradebook.db"
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "none"


def run(capsys, monkeypatch, root, argv):
    """``autograder ARGV`` in ``root``: (exit code, stderr), with nothing started."""
    from autograder.instructor.kernels import services

    monkeypatch.setenv("NBGRADER_DB_URL", f"sqlite:///{root / 'gradebook.db'}")
    monkeypatch.chdir(root)
    monkeypatch.setattr(services.Services, "start", lambda *a, **k: pytest.fail("a server was started"))
    before = fingerprint(root)
    try:
        code = cli.main(argv)
    except SystemExit as e:  # argparse's own refusals
        code = e.code
    out, err = capsys.readouterr()
    assert fingerprint(root) == before, "the gradebook changed"
    assert out == "" and "Traceback" not in err
    *usage, said = err.strip().splitlines()
    assert all(line.startswith(("usage:", " ")) for line in usage), err  # argparse's usage, then one sentence
    return code, said


@pytest.mark.parametrize("argv,words", [
    (["grade", "03_zeroing"], "There is no assignment 03_zeroing in this course; its assignments are "
                              "01_requires_grad, 03_zeroing_grad. Did you mean 03_zeroing_grad?"),
    (["grade", f"source/{NAME}/"], f"Did you mean {NAME}?"),
    (["grade", f"{NAME}.ipynb"], f"Did you mean {NAME}?"),
    (["grade", "99_nothing_like_it"], "its assignments are 01_requires_grad, 03_zeroing_grad."),
    (["grade", NAME, "--student", "carl"],
     f"There is no submission of {NAME} from carl (no folder submitted/carl/{NAME}/), so nothing was "
     "graded and the gradebook is unchanged; the students with a submission are alice, bob, carol. "
     "Did you mean carol?"),
    (["grade", NAME, "--student", "alice", "--student", "nobdy"], "from nobdy"),
    (["grade", NAME, "--jobs", "0"], "argument --jobs: must be a whole number, 1 or more (got 0)"),
    (["grade", NAME, "--jobs", "-2"], "got -2"),
    (["grade", NAME, "--jobs", "two"], "got two"),
    (["grade", NAME, "--timeout", "0"], "argument --timeout: must be a whole number"),
    (["report", "03_zeroing"], "Did you mean 03_zeroing_grad?"),
    (["report", "01_requires_grad"], "01_requires_grad has not been graded yet"),
])
def test_a_wrong_argument_is_one_sentence(make_course, tmp_path, capsys, monkeypatch, argv, words):
    root = make_course(tmp_path / "course")
    code, said = run(capsys, monkeypatch, root, argv)
    assert code == 2 and words in said, said


def test_a_mistyped_student_is_never_added(make_course, tmp_path, capsys, monkeypatch):
    root = make_course(tmp_path / "course")
    run(capsys, monkeypatch, root, ["grade", NAME, "--student", "nobdy"])
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        assert [s.id for s in gb.students] == ["alice"]
        assert gb.find_assignment(NAME).submissions == []


@pytest.mark.parametrize("student", ["<img src=x onerror=alert(1)>", "mallory,10", "-dave", "\x1b[2Jeve", ""])
def test_a_student_id_that_is_not_plain_is_refused(make_course, tmp_path, capsys, monkeypatch, student):
    """Named with --student, even with a folder of that name: nothing is graded (such a folder is
    never graded: test_class_grading), and the refusal shows the name as Python writes it."""
    root = make_course(tmp_path / "course", submissions=(*STUDENTS, student) if student else STUDENTS)
    code, said = run(capsys, monkeypatch, root, ["grade", NAME, f"--student={student}"])
    assert code == 2 and said.startswith(f"autograder: {student!r} is not a student id the course accepts (it is")
    assert "\x1b" not in said


def test_a_refusal_lists_folder_names_as_text(make_course, tmp_path, capsys, monkeypatch):
    """The students a refusal lists are the submission folders' names, which students choose."""
    hostile = "\x1b]0;pwned\x07caro\u202el\r"
    root = make_course(tmp_path / "course", submissions=(*STUDENTS, hostile))
    code, said = run(capsys, monkeypatch, root, ["grade", NAME, "--student", "carl"])
    assert code == 2 and "the students with a submission are alice, bob, carol, carol ." in said, said
    assert not any(ord(c) < 32 or 0x7f <= ord(c) <= 0x9f or 0x202a <= ord(c) <= 0x202e for c in said), repr(said)


def test_an_assignment_never_generated_says_what_to_run(make_course, tmp_path, capsys, monkeypatch):
    for case, kwargs in {"no_gradebook": {"gradebook": False}, "not_in_it": {"generated": False}}.items():
        root = make_course(tmp_path / case, **kwargs)
        code, said = run(capsys, monkeypatch, root, ["grade", NAME])
        assert code == 2 and said == (
            f"autograder: The assignment {NAME} is not in the gradebook yet: run `nbgrader generate_assignment "
            f"{NAME}` in {root} first (it records the assignment's questions and points), then grade again.")
        assert (root / "gradebook.db").exists() == kwargs.get("gradebook", True)  # no gradebook made


def test_no_submissions_says_where_they_go(make_course, tmp_path, capsys, monkeypatch):
    root = make_course(tmp_path / "course", submissions=())
    code, said = run(capsys, monkeypatch, root, ["grade", NAME])
    assert code == 2 and f"no folder {root / 'submitted'}/<student>/{NAME}/" in said
    assert f"nbgrader collect {NAME}" in said


def test_a_folder_that_is_not_a_course(make_course, tmp_path, capsys, monkeypatch):
    (tmp_path / "notes").mkdir()
    root = make_course(tmp_path / "course")
    for folder, words in {tmp_path / "notes": "is not an nbgrader course folder (it has no nbgrader_config.py",
                          tmp_path / "nowhere": f"There is no folder {tmp_path / 'nowhere'}"}.items():
        for command in (["grade", NAME], ["report"]):
            code, said = run(capsys, monkeypatch, root, [*command, "--course", str(folder)])
            assert code == 2 and words in said and "--course" in said, said


@pytest.mark.parametrize("url,words", [
    ("postgresql+psycopg://grader:hunter2@127.0.0.1:1/course", "cannot be read (connection"),
    ("postgresql+nodriver://grader:hunter2@127.0.0.1/course", "is not a database URL"),
    ("not a url at all", "is not a database URL"),
    ("mysql+mysqldb://grader:hunter2@127.0.0.1/course", "driver for mysql+mysqldb://grader:***@127.0.0.1/course "
                                                        "is not installed (Python module MySQLdb)"),
])
def test_a_gradebook_that_cannot_be_read(make_course, tmp_path, capsys, monkeypatch, url, words):
    root = make_course(tmp_path / "course")
    for command in (["grade", NAME], ["report"]):
        code, said = run(capsys, monkeypatch, root, [*command, "--db-url", url])
        assert code == 2 and words in said and "hunter2" not in said, said


def test_a_broken_configuration(make_course, tmp_path, capsys, monkeypatch):
    root = make_course(tmp_path / "course")
    with open(root / "nbgrader_config.py", "a") as f:
        f.write("c.Execute.timeout = = 3\n")
    for command in (["grade", NAME], ["report"]):
        code, said = run(capsys, monkeypatch, root, command)
        assert code == 2 and said.startswith(f"autograder: The course's configuration in {root} could not be read "
                                             "(SyntaxError: invalid syntax") and "line " in said, said


def test_report_before_any_grading(make_course, tmp_path, capsys, monkeypatch):
    root = make_course(tmp_path / "course", gradebook=False)
    code, said = run(capsys, monkeypatch, root, ["report"])
    assert code == 2 and "Nothing has been graded" in said and "autograder grade ASSIGNMENT" in said
    elsewhere = f"sqlite:///{tmp_path / 'elsewhere' / 'gradebook.db'}"  # a gradebook not made yet
    code, said = run(capsys, monkeypatch, root, ["grade", NAME, "--db-url", elsewhere])
    assert code == 2 and "is not in the gradebook yet" in said
    assert not (tmp_path / "elsewhere").exists()


def test_the_right_arguments_pass(make_course, tmp_path):
    """The same checks let a right command through (so the refusals above can fail)."""
    root = make_course(tmp_path / "course")
    from autograder.instructor.course_config import course_config

    config = course_config(root, f"sqlite:///{root / 'gradebook.db'}")
    recorded = preflight.read_gradebook(config.CourseDirectory.db_url)
    assert recorded.assignments == {NAME} and recorded.students == {"alice"}
    preflight.assignment(root, config, recorded, NAME)
    assert preflight.students(root, config, NAME, None) == list(STUDENTS)
    assert preflight.students(root, config, NAME, ["bob", "bob"]) == ["bob"]


def test_the_command_itself_prints_no_traceback(make_course, tmp_path):
    """The installed ``autograder`` command, as an instructor types it."""
    root = make_course(tmp_path / "course", gradebook=False)
    env = isolated_env(tmp_path / "home")
    result = subprocess.run([str(BIN / "autograder"), "grade", NAME], cwd=root, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"autograder: The assignment {NAME} is not in the gradebook yet")
    assert len(result.stderr.strip().splitlines()) == 1 and not (root / "gradebook.db").exists()


def test_ctrl_c_while_grading_is_one_sentence(make_course, tmp_path, capsys, monkeypatch):
    from autograder.instructor.grading import run as grade

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(grade, "grade", interrupted)
    root = make_course(tmp_path / "course")
    code, said = run(capsys, monkeypatch, root, ["grade", NAME, "--no-sandbox"])
    assert code == 130 and said == (
        "autograder: Grading stopped (Ctrl-C). The submissions graded before are in the gradebook; the others "
        f"are not graded yet: run `autograder grade {NAME}` again to grade them all.")


def test_servers_interrupted_while_starting_are_stopped(tmp_path, monkeypatch):
    """Ctrl-C (or a server that cannot start) while the servers start: the one process started,
    the fork server (the judge is forked from it once it is warm, and ends with it), is not
    left running, and their folder is removed."""
    from autograder.instructor.kernels import services

    started = []

    def command(self, which):
        return ["sleep", "300"]

    def wait_ready(self):
        started.extend(self.processes.values())
        raise KeyboardInterrupt

    monkeypatch.setattr(services.Services, "_command", command)
    monkeypatch.setattr(services.Services, "wait_ready", wait_ready)
    monkeypatch.setattr(services.forkserver, "install_kernelspec", lambda share: None)
    (tmp_path / "runs").mkdir()
    monkeypatch.setattr(services, "short_temp", lambda: str(tmp_path / "runs"))
    with pytest.raises(KeyboardInterrupt):
        services.Services.start(tmp_path, sandbox=False, log=tmp_path / "servers.log")
    assert len(started) == 1 and all(process.poll() is not None for process in started)
    assert list((tmp_path / "runs").iterdir()) == []
