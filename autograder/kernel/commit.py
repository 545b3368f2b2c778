"""Commit answers to the judge: called by the grader just before a test cell runs.

The grader sends ``send([...names])`` to the kernel before the test cell's own code, so
the judge holds the student's answers before the kernel ever sees that cell (and a
Quick Check key in its hidden part). Answers are sent as data (``wire.codec``).
"""
from __future__ import annotations

from ..wire.codec import encode
from . import connection


def send(names: list) -> None:
    from IPython import get_ipython

    namespace = get_ipython().user_ns
    values = {name: encode(namespace[name]) for name in names if name in namespace}
    judge = connection.judge()
    if isinstance(judge, connection.RemoteJudge):
        judge.commit(values)


def snippet(names: list) -> str:
    """The code the grader runs in the kernel to commit ``names``."""
    return f"__import__('autograder.kernel.commit', fromlist=['send']).send({sorted(names)!r})"
