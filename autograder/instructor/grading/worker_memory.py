"""How much memory a grading worker process may use: its own, not its kernels' (each kernel has
its own limit, ``JudgedExecute.memory_mb``, in its control group).

A worker holds nbgrader, the course's passes and one submission at a time: the notebook as
nbformat reads it, the copies its passes make, the feedback page. What a notebook can make it
hold is bounded on the way in (40 MB a notebook, ``LimitSourceSize``, ``LimitOutputSize``, what
a kernel may send), but a bound that only the grader's own code keeps is one bug away from a
worker taking the machine's memory, and with it every other worker's submissions. So every
grading worker process (a ``--jobs`` worker, watched by its pool; a Dask worker process while it
grades, watched by a thread of its own, ``dask.watched``) is measured every ``POLL`` seconds, and
one whose resident memory is past the limit is ended: its submission scores 0 with the reason
``memory`` (not tried again: it would only grow again), and the class goes on.

The limit is ``c.GradingWorker.memory_mb`` in the course's nbgrader_config.py, 2 048 MB if not
set. Measured on 40 lesson-3 submissions (benchmarks/bench_grading.py, one process grading
about 20 of them): a ``--jobs`` worker peaked at 249 MB resident, a Dask worker process (Dask's
own included) at 354 MB. A pass that grows for one student (tests/grader_faults.py) costs that
student alone, with the same row on both backends (tests/test_cluster.py).
"""
from __future__ import annotations

import psutil

DEFAULT_MB = 2048
POLL = 0.5  # seconds between two measures of a grading worker


def limit_mb(config) -> int:
    """The course's limit on one grading worker process, in MB."""
    section = config.get("GradingWorker") if hasattr(config, "get") else None
    return int((section or {}).get("memory_mb") or DEFAULT_MB)


def resident_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (0 if it is gone)."""
    try:
        return psutil.Process(pid).memory_info().rss / 2 ** 20
    except psutil.Error:
        return 0.0


def past(pid: int, limit: int | None) -> bool:
    return bool(limit) and resident_mb(pid) > limit


def detail(limit: int) -> str:
    """What a submission's log says beside its reason (the same on every backend)."""
    return f"its grading process was past the limit of {limit} MB of memory (c.GradingWorker.memory_mb)"
