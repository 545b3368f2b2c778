"""The judge of a student working on their own: in their kernel, with the public seeds.

Without the grader there is no judge process, and no point to decide: a student's own
``check_*`` call gets its verdict from the same judges, on the public scenarios (the ones
the visible test cell shows), so the feedback is the same as when grading. The kernel's
connection (``kernel.connection.judge``) makes one of these only when no grader's judge is
connected; a grading kernel never imports this package.
"""
from __future__ import annotations

from ..wire.codec import roundtrip
from ..wire.spec import Exercise
from ..wire.verdict import Verdict
from . import module, select


class LocalJudge:
    """Scenarios from the public seeds and verdicts from the judges, in this process."""

    def __init__(self):
        self._issued: dict = {}

    def scenarios(self, spec: Exercise, cases: str) -> list:
        judge = module(spec)
        issued = []
        for case in select(judge.CASES, cases):
            token = str(len(self._issued))
            data = judge.scenario(case, case["seed"])
            self._issued[token] = (judge, data)
            issued.append((token, data))
        return issued

    def report(self, token: str, observation: dict) -> Verdict:
        judge, data = self._issued.pop(token)
        return judge.verify(data, observation)

    def value(self, spec: Exercise, answer, cases: str, **options) -> Verdict:
        """A value check's verdict, from the answer as the judge would receive it."""
        return module(spec).verify_value(roundtrip(answer), cases, **options)
