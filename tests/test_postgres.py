"""The gradebook on a real PostgreSQL server: nbgrader's pipeline and `autograder grade` with
two parallel workers, against a fresh database. The server comes from .ci/postgres (CI
installs and starts it on loopback); its URL arrives in AUTOGRADER_TEST_POSTGRES."""
from __future__ import annotations

import csv
import os
import uuid

import pytest
import sqlalchemy as sa
from helpers import isolated_env, nbgrader, points
from hostile import HOSTILE
from nbgrader.api import Gradebook
from test_class_grading import FULL_MARKS, NAME, TESTS, autograder, make_course, notebooks

pytestmark = pytest.mark.slow
SERVER = os.environ.get("AUTOGRADER_TEST_POSTGRES", "")


@pytest.fixture(scope="module")
def database():
    if not SERVER:
        if os.environ.get("CI"):
            pytest.fail("CI must test PostgreSQL: .ci/postgres gave no server URL")
        pytest.skip("no PostgreSQL server (run .ci/postgres as root, or set AUTOGRADER_TEST_POSTGRES)")
    name = f"course_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(SERVER, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f"CREATE DATABASE {name}"))
    url = SERVER.rsplit("/", 1)[0] + "/" + name
    yield url
    sa.create_engine(url).dispose()
    with admin.connect() as conn:
        conn.execute(sa.text(f"DROP DATABASE {name} WITH (FORCE)"))
    admin.dispose()


@pytest.fixture(scope="module")
def graded(tmp_path_factory, database):
    env = isolated_env(tmp_path_factory.mktemp("home"))
    env["NBGRADER_DB_URL"] = database
    good = notebooks()
    submissions = dict(good)
    for student in ("not_json", "exits_the_process", "rebinds_the_check"):
        make = HOSTILE[student][0]
        submissions[student] = make(good["alice"]) if callable(make) else make
    # a second right notebook: more students than workers, so both workers write at once (four
    # more copies of alice's, as there were, cost grading time and showed nothing this one does not)
    submissions["extra0"] = good["alice"]
    root = make_course(tmp_path_factory.mktemp("course"), env, submissions)
    output = autograder(["grade", NAME, "--jobs", "2", "--timeout", "10"], root, env)
    return root, env, database, output, submissions


def _scores(url) -> dict:
    with Gradebook(url) as gb:
        return {s.id: {g.name: g.score for g in gb.find_submission_notebook(NAME, NAME, s.id).grades}
                for s in gb.students}


def test_parallel_workers_write_every_grade(graded):
    root, env, url, output, submissions = graded
    assert not (root / "gradebook.db").exists(), "the SQLite file must not be used"
    scores = _scores(url)
    assert set(scores) == set(submissions)
    for student, cells in scores.items():
        assert set(cells) == TESTS and all(v is not None for v in cells.values()), student


def test_scores_on_postgres(graded):
    scores = _scores(graded[2])
    totals = {s: sum(cells.values()) for s, cells in scores.items()}
    assert totals["alice"] == FULL_MARKS and totals["bob"] == 0
    assert totals["carol"] == FULL_MARKS - points(NAME)["train_loop_tests"]
    assert totals["extra0"] == FULL_MARKS
    assert totals["not_json"] == 0
    assert {c for c, v in scores["exits_the_process"].items() if v == 0} == {"train_loop_tests"}
    assert {c for c, v in scores["rebinds_the_check"].items() if v == 0} == {"fit_line_tests"}


def test_export_and_regrade_on_postgres(graded):
    root, env, url, _, submissions = graded
    with open(root / "grades.csv") as f:
        rows = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert rows["alice"] == FULL_MARKS and len(rows) == len(submissions)
    before = _scores(url)
    autograder(["grade", NAME, "--student", "bob", "--timeout", "10", "--no-export"], root, env)
    assert _scores(url) == before
    nbgrader(["export", "--to", "again.csv"], root, env)
    assert (root / "again.csv").read_text().count("\n") == len(submissions) + 1
