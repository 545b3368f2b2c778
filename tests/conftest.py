import os
import sys

import pytest

from autograder.instructor.fast_imports import gradebook_head_in_process, skip_iri_grammar

sys.path.insert(0, os.path.dirname(__file__))
# nbgrader runs alembic (and tests run nbgrader, jupyter) from the environment pytest runs in,
# also when pytest is started without activating it
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
# as in every process of the instructor's (autograder.instructor.fast_imports)
skip_iri_grammar()
gradebook_head_in_process()  # (the tests' own new gradebooks, as the course's processes make theirs)


@pytest.fixture(scope="session")
def hostile_course(tmp_path_factory):
    """Lesson 3 graded for three students and every hostile submission, once a session:
    test_class_grading reads it, test_cluster compares its Dask run with it."""
    from test_class_grading import grade_hostile_class

    return grade_hostile_class(tmp_path_factory.mktemp("hostile_course"))


@pytest.fixture(scope="session")
def course_hub():
    """The course's JupyterHub with its users, LMS and course, once a session (tests/hub_course.py):
    test_hub runs lesson 3 on it, test_hub_lti launches students into it from the LMS."""
    from hub_course import course_hub as start

    with start() as running:
        yield running


@pytest.fixture(scope="session")
def new_gradebook(tmp_path_factory):
    """``new_gradebook(path)`` puts a new, empty SQLite gradebook at ``path``: nbgrader makes
    one once a session and each test gets a copy. Returns the gradebook's URL."""
    import shutil

    from nbgrader.api import Gradebook

    made = tmp_path_factory.mktemp("new_gradebook") / "gradebook.db"
    with Gradebook(f"sqlite:///{made}"):
        pass

    def new(path) -> str:
        shutil.copy(made, path)
        return f"sqlite:///{path}"

    return new


# -- running on two workers (pytest-xdist, ``make test``: ``-n 2``) ---------------------------
# Each module is one unit of work, given whole to one worker, so its module fixtures (a graded
# class, a JupyterLab server) are made once; modules that share something outside pytest are
# one unit, run one after the other: the session's graded hostile class, and the session's hub
# (course_hub), on which test_hub and test_hub_lti run the course. (xdist's own ``--dist
# loadgroup`` does not group on pytest 9.2: it renames a test through ``item._nodeid``, which
# pytest no longer reads.) test_attacks plants a classmate's submission in nbgrader's default
# exchange (/usr/local/share/nbgrader/exchange) while the hub may run its course there: each
# keeps to its own course's folder and makes the folders above it if they are missing, so they
# may run side by side.
SHARED_UNITS = {
    "test_class_grading.py": "hostile_course",
    "test_cluster.py": "hostile_course",
    "test_hub.py": "course_hub",
    "test_hub_lti.py": "course_hub",
}


def unit_of(nodeid: str) -> str:
    module = nodeid.split("::")[0]
    return SHARED_UNITS.get(module.rsplit("/", 1)[-1], module)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class ByUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    return ByUnit(config, log)


# Seconds each long unit kept one worker busy in a full run of ``make test`` (2 cores, measured
# 2026-12-04): the units start longest first, so that no worker is handed a long one near the end
# while the other has nothing left (the longest-processing-time rule; xdist hands a worker its next
# unit when it has two tests or fewer left of its own). A unit not listed counts by its markers.
UNIT_SECONDS = {
    "tests/test_attacks.py": 404, "hostile_course": 295, "tests/test_browser.py": 224, "course_hub": 153,
    "tests/test_student_walk.py": 126, "tests/test_exchange_cycle.py": 69, "tests/test_browser_instructor.py": 60,
    "tests/test_browser_walk.py": 52, "tests/test_browser_hostile.py": 47, "tests/passes/test_judged_execute.py": 47,
    "tests/test_sandbox.py": 40, "tests/test_self_check.py": 36, "tests/test_postgres.py": 35,
    "tests/test_nbgrader_pipeline.py": 34,
}


def _seconds(item) -> int:
    """What a unit is expected to cost (``UNIT_SECONDS``), else 30 for a browser test, 10 for a slow one."""
    unit = unit_of(item.nodeid)
    if unit in UNIT_SECONDS:
        return UNIT_SECONDS[unit]
    return 30 if item.get_closest_marker("browser") else 10 if item.get_closest_marker("slow") else 0


def pytest_collection_modifyitems(config, items):
    """The units in the order their workers should take them, longest first (xdist's
    ``--no-loadscope-reorder`` keeps this order; it would otherwise put the units with the most
    tests first)."""
    cost = {}
    for item in items:
        cost[unit_of(item.nodeid)] = max(cost.get(unit_of(item.nodeid), 0), _seconds(item))
    items.sort(key=lambda item: -cost[unit_of(item.nodeid)])  # stable: a unit keeps its own order


# -- folders nested past Python's recursion (tests/deep_folders.py) ---------------------------
# Some tests submit, or have a kernel make, chains of a thousand folders and more. pytest removes
# old temporary folders with a recursive rmtree at exit, which raises RecursionError on such a
# chain and fails the whole run (it did in CI: a test stopped before its own flatten()). So each
# process flattens what it leaves, whatever its tests did, and the first flattens what earlier
# sessions left in pytest's folder.
def _flatten_quietly(folder) -> None:
    from deep_folders import flatten

    try:
        flatten(folder)
    except OSError:  # (a folder another session is removing)
        pass


def pytest_sessionstart(session):
    if hasattr(session.config, "workerinput"):
        return
    from _pytest.tmpdir import get_user

    root = os.path.join(os.environ.get("PYTEST_DEBUG_TEMPROOT") or __import__("tempfile").gettempdir(),
                        f"pytest-of-{get_user() or 'unknown'}")
    if os.path.isdir(root):
        for name in os.listdir(root):
            path = os.path.join(root, name)
            if os.path.isdir(path) and not os.path.islink(path):
                _flatten_quietly(path)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    factory = getattr(session.config, "_tmp_path_factory", None)
    basetemp = getattr(factory, "_basetemp", None)
    if basetemp is not None and basetemp.is_dir():
        _flatten_quietly(basetemp)
