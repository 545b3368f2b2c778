"""A new student's submission is recorded without SQLAlchemy's warnings (nbgrader's
``add_submission`` flushed half-made objects: six SAWarnings per student on the terminal)."""
from __future__ import annotations

import shutil
import warnings

import pytest
from nbgrader.api import Gradebook
from sqlalchemy.exc import SAWarning

from autograder.instructor.grading import worker


@pytest.fixture(scope="module")
def template(tmp_path_factory, new_gradebook):
    """An assignment with one notebook, two graded cells and a solution cell."""
    path = tmp_path_factory.mktemp("gb") / "gradebook.db"
    with Gradebook(new_gradebook(path)) as gb:
        gb.add_assignment("a1")
        gb.add_notebook("nb", "a1")
        gb.add_grade_cell("q1", "nb", "a1", max_score=1, cell_type="code")
        gb.add_grade_cell("q2", "nb", "a1", max_score=2, cell_type="code")
        gb.add_solution_cell("answer", "nb", "a1")
        gb.add_student("old")
    return path


def submit(path, student: str) -> list:
    """Record ``student``'s submission as autograding does; the SAWarnings it raised."""
    with warnings.catch_warnings(record=True) as caught, Gradebook(f"sqlite:///{path}") as gb:
        warnings.simplefilter("always")
        gb.update_or_create_student(student)
        gb.update_or_create_submission("a1", student, timestamp="2026-01-02 03:04:05")
    return [w for w in caught if issubclass(w.category, SAWarning)]


def test_nbgrader_as_it_comes_warns(template, tmp_path, monkeypatch):
    """The warnings the fix removes (if nbgrader stops making them, the fix can go)."""
    monkeypatch.setattr(Gradebook, "add_submission", Gradebook.add_submission)  # undone after the test
    if getattr(Gradebook.add_submission, "without_autoflush", False):
        pytest.skip("already patched in this process")
    path = shutil.copy(template, tmp_path / "gradebook.db")
    assert any("not in session" in str(w.message) for w in submit(path, "alice"))


def test_a_new_submission_is_recorded_whole_and_quietly(template, tmp_path, monkeypatch):
    monkeypatch.setattr(Gradebook, "add_submission", Gradebook.add_submission)  # undone after the test
    worker.quiet_add_submission()
    wrapped = Gradebook.add_submission
    worker.quiet_add_submission()  # twice in one process: still one wrapper
    assert Gradebook.add_submission is wrapped and wrapped.without_autoflush
    path = shutil.copy(template, tmp_path / "gradebook.db")
    assert submit(path, "alice") == [] and submit(path, "bob") == []
    assert submit(path, "alice") == []  # a regrade: the submission exists already
    with Gradebook(f"sqlite:///{path}") as gb:
        for student in ("alice", "bob"):
            submission = gb.find_submission("a1", student)
            assert str(submission.timestamp) == "2026-01-02 03:04:05"
            (notebook,) = submission.notebooks
            assert sorted(g.name for g in notebook.grades) == ["q1", "q2"]
            assert [c.name for c in notebook.comments] == ["answer"]
            assert notebook.max_score == 3
        assert sorted(s.id for s in gb.students) == ["alice", "bob", "old"]


@pytest.mark.parametrize("reason, says", [
    ("overran", "took longer than a whole notebook may take"),
    ("lost", "stopped twice before it finished"),
    ("memory", "took more memory than a grading process may use"),
])
def test_a_submission_its_worker_could_not_finish_scores_0_and_says_why(template, tmp_path, reason, says):
    """``worker.refuse``, which ``run.grade`` calls for every backend's lost submission."""
    from traitlets.config import Config

    from autograder.instructor import failures

    path = shutil.copy(template, tmp_path / "gradebook.db")
    submit(path, "alice")
    submit(path, "bob")
    with Gradebook(f"sqlite:///{path}") as gb:
        for student in ("alice", "bob"):
            for grade in gb.find_submission_notebook("nb", "a1", student).grades:
                grade.auto_score = grade.max_score
        gb.db.commit()
    config = Config()
    config.CourseDirectory.db_url = f"sqlite:///{path}"
    outcome = worker.refuse(str(tmp_path), config, "a1", "alice", reason, "the detail")
    assert (outcome.student, outcome.ok, outcome.reason) == ("alice", False, reason)
    with Gradebook(f"sqlite:///{path}") as gb:
        assert [g.score for g in gb.find_submission_notebook("nb", "a1", "alice").grades] == [0, 0]
        assert [g.score for g in gb.find_submission_notebook("nb", "a1", "bob").grades] == [1, 2]  # untouched
    page = (tmp_path / "feedback" / "alice" / "a1" / "nb.html").read_text()
    assert says in page and "Score: 0 of 3" in page
    assert failures.recorded(tmp_path, "a1") == {"alice": reason}
    log = failures.log_path(tmp_path, "a1", "alice").read_text()
    assert worker.LOST[reason] in log and "the detail" in log


def test_a_worker_compiles_its_queries_once_and_keeps_no_connection_open(template, tmp_path, monkeypatch):
    """Every Gradebook a worker opens on one database shares one engine, so a query is compiled
    once, not once per Gradebook; closing a Gradebook still closes its connections; the next
    ``init`` (a Dask worker's next course) starts from new engines."""
    import nbgrader.api as api

    monkeypatch.setattr(api, "create_engine", api.create_engine)  # undone after the test
    monkeypatch.setattr(worker, "_ENGINES", {})
    path = tmp_path / "gradebook.db"
    shutil.copy(template, path)
    url = f"sqlite:///{path}"
    worker.one_engine_per_database()
    engines, compiled = [], []
    for student in ("ann", "ben"):
        submit(path, student)
        with Gradebook(url) as gb:
            engines.append(gb.engine)
            gb.find_student(student)
            compiled.append(len(gb.engine._compiled_cache))
        assert gb.engine.pool.checkedout() == 0 and gb.engine.pool.checkedin() == 0
    assert engines[0] is engines[1] and compiled[0] == compiled[1] > 0
    with Gradebook(url) as gb:
        assert sorted(s.id for s in gb.students) == ["ann", "ben", "old"]
    worker.one_engine_per_database()
    with Gradebook(url) as gb:
        assert gb.engine is not engines[0]
    with Gradebook(f"sqlite:///{tmp_path / 'other.db'}") as gb:
        assert gb.engine is not engines[0]
