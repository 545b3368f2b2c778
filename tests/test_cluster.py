"""`autograder grade --scheduler`: grading on a Dask cluster, here a `distributed.LocalCluster`
of two single-threaded worker processes, with the gradebook on the PostgreSQL server that
.ci/postgres starts (AUTOGRADER_TEST_POSTGRES). The same submissions, hostile ones included,
get exactly the per-cell scores a local run gives; a worker killed while it grades costs
nothing; a second run has nothing to do; SQLite is refused. And what goes wrong while a class
is graded (a kernel killed, the judge killed, a grading process past its memory) gives the same
rows with --jobs 2 as on the cluster: one loop, one rule (``grading.run``)."""
from __future__ import annotations

import copy
import os
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path

import psutil
import pytest
import sqlalchemy as sa
from helpers import BIN, isolated_env, page_text
from nbgrader.api import Gradebook
from test_class_grading import FULL_MARKS, NAME, TESTS, hostile_submissions, make_course, notebooks

from autograder.instructor import failures
from autograder.instructor.kernels.forkserver import JUDGE_NAME

JUDGE = JUDGE_NAME.decode()  # the name of a judge forked from its fork server (ps, psutil's name())

SERVER = os.environ.get("AUTOGRADER_TEST_POSTGRES", "")
WORKER_ENV = ("HOME", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR",
              "MPLCONFIGDIR", "TMPDIR")
WAIT = 600  # seconds any wait below may take on a slow, shared machine before the test fails


@pytest.fixture(scope="module")
def server():
    if not SERVER:
        if os.environ.get("CI"):
            pytest.fail("CI must test PostgreSQL: .ci/postgres gave no server URL")
        pytest.skip("no PostgreSQL server (run .ci/postgres as root, or set AUTOGRADER_TEST_POSTGRES)")
    admin = sa.create_engine(SERVER, isolation_level="AUTOCOMMIT")
    made = []

    def database(template: str = "") -> str:
        """A new database (a copy of the database at URL ``template``): its URL."""
        name = f"cluster_{uuid.uuid4().hex[:8]}"
        copy_of = f" TEMPLATE {template.rsplit('/', 1)[1]}" if template else ""
        with admin.connect() as conn:
            conn.execute(sa.text(f"CREATE DATABASE {name}{copy_of}"))
        made.append(name)
        return SERVER.rsplit("/", 1)[0] + "/" + name

    yield database
    with admin.connect() as conn:
        for name in made:
            conn.execute(sa.text(f"DROP DATABASE {name} WITH (FORCE)"))
    admin.dispose()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Two worker processes, one thread each, in a home of their own; and a client to watch them."""
    from distributed import Client, LocalCluster

    env = isolated_env(tmp_path_factory.mktemp("workers"))
    local = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                         env={k: env[k] for k in WORKER_ENV}, local_directory=str(env["TMPDIR"]))
    client = Client(local)
    yield local, client, Path(env["TMPDIR"])
    client.close()
    local.close()


@pytest.fixture(scope="module")
def generated(tmp_path_factory, server):
    """Lesson 3 generated once, its gradebook in a database of the server: (the course, its
    database's URL). Each course below starts from a copy of both (``course``): PostgreSQL copies
    a database in well under a second, where generate_assignment takes ~6 s a course (the
    module grades four courses; generating on PostgreSQL is test_postgres's subject)."""
    env = isolated_env(tmp_path_factory.mktemp("home-generated"))
    env["NBGRADER_DB_URL"] = server()
    return make_course(tmp_path_factory.mktemp("generated"), env, {}), env["NBGRADER_DB_URL"]


def course(tmp_path_factory, server, generated, submissions: dict, label: str):
    """A course of lesson 3 with ``submissions``, as ``generated`` left it, on a database of its own."""
    env = isolated_env(tmp_path_factory.mktemp(f"home-{label}"))
    env["NBGRADER_DB_URL"] = server(template=generated[1])
    return make_course(tmp_path_factory.mktemp(label), env, submissions, generated=generated[0]), env


def run(args, root, env, check=True) -> subprocess.CompletedProcess:
    done = subprocess.run([str(BIN / "autograder"), "grade", NAME, *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert not check or done.returncode == 0, done.stdout + done.stderr
    return done


def db_scores(url) -> dict:
    with Gradebook(url) as gb:
        return {s.id: {g.name: g.score for g in gb.find_submission_notebook(NAME, NAME, s.id).grades}
                for s in gb.students}


def rows(url) -> dict:
    """How many rows nbgrader's gradebook holds per table of a submission."""
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        found = {table: conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar()
                 for table in ("student", "submitted_assignment", "submitted_notebook", "grade")}
    engine.dispose()
    return found


def stamps(root, students) -> dict:
    return {(kind, s): os.stat(root / kind / s / NAME / f"{NAME}.{ext}").st_mtime_ns
            for s in students for kind, ext in (("autograded", "ipynb"), ("feedback", "html"))
            if (root / kind / s / NAME / f"{NAME}.{ext}").exists()}


def left_on_workers(client, local_directory: Path) -> tuple:
    """Processes the workers still run (their judge, fork server, kernels) and course folders left."""
    children = client.run(lambda: [p.pid for p in psutil.Process().children(recursive=True)])
    return [pid for pids in children.values() for pid in pids], sorted(local_directory.rglob("autograder-*"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory, server, generated, cluster, hostile_course):
    """The class conftest's ``hostile_course`` graded on this machine (SQLite, the reference),
    graded again on the cluster."""
    local, client, workers_folder = cluster
    submissions = hostile_submissions()
    root, env = course(tmp_path_factory, server, generated, submissions, "cluster")
    done = run(["--scheduler", local.scheduler_address, "--timeout", "10"], root, env)
    url = env["NBGRADER_DB_URL"]
    return {"reference": hostile_course[4], "reference_root": hostile_course[0], "root": root, "env": env,
            "url": url, "scores": db_scores(url),
            "stdout": done.stdout, "stderr": done.stderr, "students": sorted(submissions),
            "left": left_on_workers(client, workers_folder)}


@pytest.mark.slow
def test_cluster_gives_every_student_exactly_the_scores_of_a_local_run(graded):
    assert set(graded["scores"]) == set(graded["students"])
    for student in graded["students"]:
        assert graded["scores"][student] == graded["reference"][student], student
        assert set(graded["scores"][student]) == TESTS
    totals = {s: sum(cells.values()) for s, cells in graded["scores"].items()}
    assert totals["alice"] > 0 and totals["bob"] == 0 and 0 < totals["carol"] < totals["alice"]


def listing(folder: Path) -> list:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.is_dir() else None


@pytest.mark.slow
def test_cluster_writes_the_course_directory_here(graded):
    root, reference = graded["root"], graded["reference_root"]
    for student in graded["students"]:
        assert any((root / "feedback" / student / NAME).glob("*.html")), student
        assert (root / "autograder-logs" / NAME / "graded" / f"{student}.json").is_file(), student
        for kind in ("autograded", "feedback"):  # the same files a local run leaves
            assert listing(root / kind / student / NAME) == listing(reference / kind / student / NAME), (kind, student)
    for student in ("alice", "carol", "loops_forever"):
        assert (root / "autograded" / student / NAME / f"{NAME}.ipynb").is_file()
    assert "cleared only once" in page_text(root / "feedback" / "carol" / NAME / f"{NAME}.html")
    assert "not a valid notebook" in page_text(root / "feedback" / "not_json" / NAME / f"{NAME}.html")
    assert failures.log_path(root, NAME, "not_json").is_file()  # nbgrader's log, for the instructor
    assert "HIDDEN TESTS" not in (root / "feedback" / "alice" / NAME / f"{NAME}.html").read_text()
    assert (root / "grades.csv").read_text().count("\n") == len(graded["students"]) + 1
    assert "Most common mistakes" in graded["stdout"] and "cleared the gradients only once" in graded["stdout"]


@pytest.mark.slow
def test_cluster_run_reports_workers_and_leaves_nothing_on_them(graded):
    assert "Dask scheduler tcp://" in graded["stderr"] and "2 workers connected" in graded["stderr"]
    assert f"{len(graded['students'])}/{len(graded['students'])} graded" in graded["stderr"]
    processes, folders = graded["left"]
    assert processes == [] and folders == []  # each worker stopped its judge and fork server
    assert rows(graded["url"]) == {"student": len(graded["students"]), "submitted_assignment": len(graded["students"]),
                                   "submitted_notebook": len(graded["students"]),
                                   "grade": len(graded["students"]) * len(TESTS)}


@pytest.mark.slow
def test_a_second_run_has_nothing_to_do_and_a_changed_submission_is_graded_alone(graded, cluster):
    local = cluster[0]
    root, env, url = graded["root"], graded["env"], graded["url"]
    before, files_before = db_scores(url), stamps(root, graded["students"])
    done = run(["--scheduler", local.scheduler_address, "--timeout", "10"], root, env)
    assert f"{len(graded['students'])} submissions unchanged since they were graded were skipped" in done.stdout
    assert "0 submissions graded" in done.stdout and "Dask scheduler" not in done.stderr  # not even connected
    assert db_scores(url) == before and stamps(root, graded["students"]) == files_before
    (root / "submitted" / "bob" / NAME / f"{NAME}.ipynb").write_bytes(
        (root / "submitted" / "alice" / NAME / f"{NAME}.ipynb").read_bytes())
    done = run(["--scheduler", local.scheduler_address, "--timeout", "10"], root, env)
    assert "1 submission graded" in done.stdout, done.stdout
    after = db_scores(url)
    assert after["bob"] == before["alice"]
    assert {s: v for s, v in after.items() if s != "bob"} == {s: v for s, v in before.items() if s != "bob"}
    changed = {key for key, stamp in stamps(root, graded["students"]).items() if files_before.get(key) != stamp}
    assert changed == {("autograded", "bob"), ("feedback", "bob")}
    assert rows(url)["grade"] == len(graded["students"]) * len(TESTS)  # updated, not added


def _grading_worker(client) -> tuple | None:
    """(address, pid, its processes) of a worker that holds a submission's grading task (not
    the check of the instructor's notebook before it) and whose fork server runs a kernel."""
    holding = {address for address, keys in client.processing().items()
               if any(str(key).startswith("autograder-") for key in keys)}
    for address, pid in client.run(os.getpid).items():
        if address not in holding:
            continue
        try:
            family = psutil.Process(pid).children(recursive=True)
        except psutil.NoSuchProcess:
            continue
        for process in family:
            try:
                if "autograder-fork" in process.cmdline() and [c for c in process.children() if c.name() != JUDGE]:
                    return address, pid, family
            except psutil.NoSuchProcess:
                continue
    return None


@pytest.mark.slow
def test_a_worker_killed_while_it_grades_costs_nothing(tmp_path_factory, server, generated, cluster, graded):
    local, client, _ = cluster
    good = notebooks()
    # alice, bob, carol and a copy of alice's: four submissions for two workers, so grading goes
    # on while the killed worker's submission waits to be graded again (three copies of alice's,
    # as there were, cost a round of grading and showed nothing the first does not)
    submissions = {**good, "extra0": good["alice"]}
    root, env = course(tmp_path_factory, server, generated, submissions, "killed")
    grading = subprocess.Popen([str(BIN / "autograder"), "grade", NAME, "--scheduler", local.scheduler_address,
                                "--timeout", "10"], cwd=root, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + WAIT
        victim = None
        while victim is None and grading.poll() is None and time.monotonic() < deadline:
            victim = _grading_worker(client)
            time.sleep(0.2)
        assert victim is not None, "no worker was seen grading"
        address, pid, family = victim
        os.kill(pid, signal.SIGKILL)
        stdout, stderr = grading.communicate(timeout=WAIT)
    finally:
        if grading.poll() is None:
            grading.kill()
    assert grading.returncode == 0, stdout + stderr
    url = env["NBGRADER_DB_URL"]
    got = db_scores(url)
    assert set(got) == set(submissions)
    for student in submissions:
        assert got[student] == graded["reference"]["bob" if student == "bob" else
                                                   "carol" if student == "carol" else "alice"], student
        assert any((root / "feedback" / student / NAME).glob("*.html")), student
    assert f"(Dask worker {address}) left the cluster while holding it; its submission was graded again" in stdout
    assert rows(url) == {"student": len(submissions), "submitted_assignment": len(submissions),
                         "submitted_notebook": len(submissions), "grade": len(submissions) * len(TESTS)}
    # the killed worker's judge, fork server and kernel went with it
    deadline = time.monotonic() + 60
    while any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in family) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [p.pid for p in family if p.is_running() and p.status() != psutil.STATUS_ZOMBIE] == []
    client.wait_for_workers(2, timeout=WAIT)  # the nanny started a new worker process


def test_sqlite_is_refused_with_the_reason_and_what_to_pass(tmp_path):
    root = tmp_path / "course"
    (root / "submitted" / "alice" / NAME).mkdir(parents=True)
    (root / "nbgrader_config.py").write_text(
        "c = get_config()\nimport os\nc.CourseDirectory.db_url = 'sqlite:///' + os.path.join("
        "os.path.dirname(os.path.abspath(__file__)), 'gradebook.db')\n")
    env = isolated_env(tmp_path / "home")
    done = run(["--scheduler", "tcp://127.0.0.1:9"], root, env, check=False)
    assert done.returncode == 2
    message = done.stderr.strip()
    assert message.startswith("autograder: grading on a Dask cluster needs the gradebook on a database server")
    assert "workers on other machines cannot share a SQLite file" in message
    assert "--db-url postgresql+psycopg://" in message and "NBGRADER_DB_URL" in message
    assert message.count("\n") == 0 and not (root / "autograded").exists() and not (root / "gradebook.db").exists()


# -- the same faults on both backends ----------------------------------------------------------
# A cell that waits for the test: it leaves a marker in the kernel's working folder and waits
# until the marker is gone (the test removes it, or kills the kernel that waits).
WAIT_FOR_TEST = "import os, time\nopen({marker!r}, 'w').close()\nwhile os.path.exists({marker!r}):\n    time.sleep(0.02)\n"
FAULTS_CONFIG = """
# tests/test_cluster.py: a grader's pass that grows its grading process for memory_hog
# (tests/grader_faults.py), and the limit that ends it
c.GradingWorker.memory_mb = 1024
c.Autograde.autograde_preprocessors.insert(0, "grader_faults.Grows")
"""


def faulty_class() -> dict:
    """alice's notebook four times: as it is; with an answer cell (fit_line's) whose kernel the test
    kills each time it runs (``kernel_killed``); with one during which the test kills the judge,
    once (``judge_killed``); and for ``memory_hog``, whose grading process grows (``FAULTS_CONFIG``)."""
    good = notebooks()["alice"]

    def waiting(marker: str):
        nb = copy.deepcopy(good)
        cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "fit_line")
        cell.source = WAIT_FOR_TEST.format(marker=marker) + cell.source
        return nb

    return {"alice": good, "kernel_killed": waiting("kill-kernel"), "judge_killed": waiting("kill-judge"),
            "memory_hog": good}


class Saboteur(threading.Thread):
    """While a class is graded: kills every kernel (a process forked from a fork server) whose
    working folder has the marker kill-kernel, and, the first time a kernel shows kill-judge,
    the judge its fork server serves with (then lets that cell go on)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.done, self.killed = threading.Event(), {"kernel": 0, "judge": 0}

    def run(self) -> None:
        while not self.done.wait(0.05):
            for process in psutil.process_iter(["cmdline"]):
                try:
                    if "autograder-fork" in (process.info["cmdline"] or []):
                        self._look(process)
                except (psutil.Error, OSError, StopIteration):
                    continue

    def _look(self, process) -> None:
        folder = f"/proc/{process.pid}/cwd"
        if os.path.exists(f"{folder}/kill-kernel"):
            process.kill()
            self.killed["kernel"] += 1
        elif os.path.exists(f"{folder}/kill-judge"):
            if not self.killed["judge"]:
                fork = next(p for p in process.parents() if "autograder-fork" in p.cmdline())
                judge = next(p for p in fork.children() + fork.parent().children()  # (forked, or a replacement)
                             if p.name() == JUDGE or "autograder-judge" in p.cmdline())
                judge.kill()
                judge.wait(WAIT)
                self.killed["judge"] += 1
            os.unlink(f"{folder}/kill-judge")


def grade_sabotaged(args, root, env) -> tuple:
    """``autograder grade`` with ``args`` while a ``Saboteur`` watches: (stdout, what it killed)."""
    grading = subprocess.Popen([str(BIN / "autograder"), "grade", NAME, *args], cwd=root, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    saboteur = Saboteur()
    saboteur.start()
    try:
        stdout, stderr = grading.communicate(timeout=WAIT)
    finally:
        saboteur.done.set()
        saboteur.join()
        if grading.poll() is None:
            grading.kill()
    assert grading.returncode == 0, stdout + stderr
    return stdout, saboteur.killed


RETRIED = "the grader failed on this submission and graded it again"


def student_lines(stdout: str, students) -> tuple:
    """What the run said of each student (not of the machinery: a local run names the servers it
    replaced, a cluster's are its workers'): (its lines, but those of students graded again after
    the grader failed on them; those students). Which students were graded again depends on
    which were being graded when the judge died; the judge_killed student always is."""
    lines = [line.strip() for line in stdout.splitlines()
             if any(line.strip().startswith(f"{student}:") for student in students)]
    return sorted(line for line in lines if RETRIED not in line), {line.split(":")[0] for line in lines
                                                                   if RETRIED in line}


@pytest.mark.slow
def test_the_same_faults_give_the_same_rows_on_both_backends(tmp_path_factory, server, generated, cluster):
    """One loop, one rule for what goes wrong, whatever grades (``run.grade``): the same class
    graded with --jobs 2 and on the cluster, each while a student's kernel is killed, the judge
    is killed during another's notebook, and a third's grading process grows past its memory
    limit, gives the same gradebook rows, the same reasons and the same lines for the instructor."""
    local, client, _ = cluster
    submissions = faulty_class()
    runs = {}
    for backend in ("local", "cluster"):
        root, env = course(tmp_path_factory, server, generated, submissions, f"faults-{backend}")
        with open(root / "nbgrader_config.py", "a") as f:
            f.write(FAULTS_CONFIG)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).parent), env.get("PYTHONPATH")]))
        args = ["--jobs", "2"] if backend == "local" else ["--scheduler", local.scheduler_address]
        stdout, killed = grade_sabotaged([*args, "--timeout", "10"], root, env)
        lines, retried = student_lines(stdout, submissions)
        runs[backend] = {"scores": db_scores(env["NBGRADER_DB_URL"]), "reasons": failures.recorded(root, NAME),
                         "lines": lines, "retried": retried, "killed": killed, "root": root}
    client.wait_for_workers(2, timeout=WAIT)  # the nanny replaced the worker process that was ended
    local_run, cluster_run = runs["local"], runs["cluster"]
    assert cluster_run["scores"] == local_run["scores"] and cluster_run["reasons"] == local_run["reasons"]
    assert cluster_run["lines"] == local_run["lines"], (local_run["lines"], cluster_run["lines"])
    scores = local_run["scores"]
    assert sum(scores["alice"].values()) == FULL_MARKS and scores["judge_killed"] == scores["alice"]
    lost = {cell for cell, score in scores["kernel_killed"].items() if score != scores["alice"][cell]}
    assert lost == {"fit_line_tests"} and scores["kernel_killed"]["fit_line_tests"] == 0  # the cell killed
    assert set(scores["memory_hog"].values()) == {0}
    assert local_run["reasons"] == {"memory_hog": "memory"}
    assert "memory_hog: Grading your notebook" in "\n".join(local_run["lines"])
    assert not any(line.startswith("memory_hog: a grading process") for line in local_run["lines"])
    for run_ in runs.values():
        assert "judge_killed" in run_["retried"] and "memory_hog" not in run_["retried"], run_["retried"]
        assert run_["killed"]["judge"] == 1 and run_["killed"]["kernel"] >= 1, run_["killed"]
        feedback = run_["root"] / "feedback"
        assert "took more memory than a grading process may use" in page_text(
            feedback / "memory_hog" / NAME / f"{NAME}.html")
        assert "stopped while this cell ran" in page_text(feedback / "kernel_killed" / NAME / f"{NAME}.html")
        assert "took more memory than a grading process may use" in \
            failures.log_path(run_["root"], NAME, "memory_hog").read_text()
