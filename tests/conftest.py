import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
# nbgrader runs alembic (and tests run nbgrader, jupyter) from the environment pytest runs in,
# also when pytest is started without activating it
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
# as in a grading worker (autograder.instructor.grading.worker.init): jsonschema, imported with
# nbformat, builds rfc3987_syntax's grammar at import, 0.8 s for IRI checks no test makes
sys.modules.setdefault("rfc3987_syntax", None)


@pytest.fixture(scope="session")
def hostile_course(tmp_path_factory):
    """Lesson 3 graded for three students and every hostile submission, once a session:
    test_class_grading reads it, test_cluster compares its Dask run with it."""
    from test_class_grading import grade_hostile_class

    return grade_hostile_class(tmp_path_factory.mktemp("hostile_course"))


@pytest.fixture(scope="session")
def new_gradebook(tmp_path_factory):
    """``new_gradebook(path)`` puts a new, empty SQLite gradebook at ``path``: nbgrader makes
    one once a session (it migrates a new gradebook with alembic in a subprocess: ~3 s) and
    each test gets a copy. Returns the gradebook's URL."""
    import shutil

    from nbgrader.api import Gradebook

    made = tmp_path_factory.mktemp("new_gradebook") / "gradebook.db"
    with Gradebook(f"sqlite:///{made}"):
        pass

    def new(path) -> str:
        shutil.copy(made, path)
        return f"sqlite:///{path}"

    return new
