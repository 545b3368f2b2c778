"""The grading pool: one task's worker dying, stopping or overrunning costs that task only.

Real worker processes (forked from multiprocessing's fork server, as grading uses); the tasks
below stand for submissions.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from autograder.instructor.grading import pool


def _nothing() -> None:
    pass


def _echo(value):
    return value


def _count_then(folder: str, name: str, action: str):
    """Note one attempt at task ``name``, then do ``action``."""
    with open(Path(folder) / name, "a") as f:
        f.write("x")
    if action == "die":
        os._exit(3)
    if action == "stop":
        os.kill(os.getpid(), signal.SIGSTOP)
    if action == "hang":
        time.sleep(600)
    if action == "grow":  # 600 MB written (so resident), then held until the pool ends the worker
        held = b"x" * (600 * 2 ** 20)
        time.sleep(600)
        return len(held)
    return name


def _loaded(module: str) -> bool:
    return module in sys.modules


def test_workers_start_with_the_preloaded_modules_imported_once():
    """In a fresh process (the fork server is one per process): the workers of a pool with
    ``preload`` have nbgrader loaded before their initializer runs, and did not import it."""
    script = textwrap.dedent("""
        import sys
        from autograder.instructor.grading import pool, worker
        from test_pool import _loaded, _nothing
        if __name__ == "__main__":
            workers = pool.Pool(2, _nothing, preload=(worker.PRELOAD,))
            try:
                print(sorted(workers.run([(_loaded, ("nbgrader.apps",)), (_loaded, ("nbgrader.apps",))])),
                      "nbgrader.apps" in sys.modules)
            finally:
                workers.close()
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).parent, env={**os.environ, "PYTHONPATH": str(Path(__file__).parent)})
    assert done.stdout.split() == ["[True,", "True]", "False"], done.stdout + done.stderr


def test_workers_start_under_a_temporary_folder_too_long_for_a_socket(tmp_path):
    """The fork server's socket goes in a folder of the temporary folder: a TMPDIR whose path
    leaves no room for a socket address (107 bytes) once stopped every grading run at its
    start. In a fresh process, as the fork server is one per process."""
    long = tmp_path / ("d" * 100)
    long.mkdir()
    script = textwrap.dedent("""
        from autograder.instructor.grading import pool
        from test_pool import _echo, _nothing
        if __name__ == "__main__":
            workers = pool.Pool(1, _nothing)
            try:
                print(workers.call(_echo, 7))
            finally:
                workers.close()
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).parent,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parent), "TMPDIR": str(long)})
    assert done.stdout.split() == ["7"], done.stdout + done.stderr


def _attempts(folder: Path, name: str) -> int:
    return len((folder / name).read_text()) if (folder / name).exists() else 0


def test_tasks_come_back_and_a_worker_serves_many():
    workers = pool.Pool(2, _nothing)
    try:
        results = sorted(workers.run([(_echo, (n,)) for n in range(6)]))
    finally:
        workers.close()
    assert results == list(range(6)) and workers.faults == []


def test_a_task_that_kills_its_worker_is_tried_once_more_then_lost(tmp_path):
    workers = pool.Pool(2, _nothing)
    try:
        tasks = [(_count_then, (str(tmp_path), name, action))
                 for name, action in (("a", "return"), ("dies", "die"), ("b", "return"), ("stops", "stop"))]
        results = list(workers.run(tasks))
    finally:
        workers.close()
    assert sorted(r for r in results if isinstance(r, str)) == ["a", "b"]
    lost = {r.task[1][1]: r.reason for r in results if isinstance(r, pool.Lost)}
    assert lost == {"dies": "died", "stops": "was stopped"}
    assert _attempts(tmp_path, "dies") == 2 and _attempts(tmp_path, "stops") == 2
    assert _attempts(tmp_path, "a") == 1 and _attempts(tmp_path, "b") == 1


@pytest.mark.parametrize("limit, action, fault", [
    ({"task_timeout": 1.5}, "hang", "overran"),
    ({"memory_mb": 300}, "grow", "memory"),
])
def test_a_task_past_its_time_or_memory_is_lost_at_once_and_the_others_go_on(tmp_path, limit, action, fault):
    workers = pool.Pool(2, _nothing, **limit)
    try:
        tasks = [(_count_then, (str(tmp_path), name, how))
                 for name, how in (("bad", action), ("a", "return"), ("b", "return"), ("c", "return"))]
        results = list(workers.run(tasks))
        after = workers.call(_echo, "still serving")
    finally:
        workers.close()
    assert [(r.task[1][1], r.reason) for r in results if isinstance(r, pool.Lost)] == [("bad", fault)]
    assert sorted(r for r in results if isinstance(r, str)) == ["a", "b", "c"]
    assert _attempts(tmp_path, "bad") == 1  # not tried again: it would only overrun again
    assert after == "still serving"
    assert [reason for _, reason in workers.faults] == [fault]


def _slow_start(seconds: str) -> None:
    time.sleep(float(seconds))


def _broken_start() -> None:
    raise ImportError("no module named nbgrader")


def test_a_tasks_time_starts_when_its_worker_is_ready():
    """A worker's set-up (nbgrader's imports: seconds on a loaded machine) is not its first
    task's time: with a 1 s budget, workers that take 2 s to start still serve every task."""
    workers = pool.Pool(2, _slow_start, ("2",), task_timeout=1.0)
    try:
        assert sorted(workers.run([(_echo, (i,)) for i in range(4)])) == [0, 1, 2, 3]
    finally:
        workers.close()
    assert workers.faults == []


def test_workers_that_cannot_start_stop_the_run_with_the_reason():
    """A set-up that fails in every worker is the grading environment's fault: the run stops
    and says so, instead of losing every submission as if its notebook had killed a worker."""
    workers = pool.Pool(2, _broken_start)
    try:
        with pytest.raises(RuntimeError, match=r"end before they are ready .* test_pool:_broken_start fails"):
            list(workers.run([(_echo, (1,))]))
    finally:
        workers.close()


def test_without_a_budget_a_slow_task_is_waited_for(tmp_path):
    workers = pool.Pool(1, _nothing, task_timeout=None)
    try:
        assert workers.call(time.sleep, 0.5) is None
    finally:
        workers.close()
    assert workers.faults == []


def test_results_travel_as_json_and_dataclasses_come_back():
    """No pickle between the coordinator and its workers: a result is JSON, and an outcome (a
    dataclass of the grader's) comes back as itself."""
    from autograder.instructor.grading.worker import Outcome

    outcome = Outcome("alice", True, 1.5, "", {"nb": {"q1": 1.0}})
    assert pool.decode(pool.encode(outcome)) == outcome
    assert pool.decode(pool.encode([("a", 1), {"k": None}])) == [["a", 1], {"k": None}]
    import pytest

    with pytest.raises(ValueError):
        pool.decode({"$dataclass": "subprocess:Popen", "fields": {"args": ["true"]}})
    workers = pool.Pool(1, _nothing)
    try:
        assert workers.call(_echo, {"nested": [1, "two"]}) == {"nested": [1, "two"]}
    finally:
        workers.close()
