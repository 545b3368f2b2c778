"""The judge of a student working on their own: in their kernel, with the public seeds.

Without the grader there is no judge process, and no point to decide: a student's own
``check_*`` call gets its verdict from the same judges, on the public scenarios (the ones
the visible test cell shows), so the feedback is the same as when grading. The kernel's
connection (``kernel.connection.judge``) makes one of these only when no grader's judge is
connected; a grading kernel never imports this package.
"""
from __future__ import annotations

import getpass
import itertools
import json
import os
from collections import OrderedDict
from pathlib import Path

from ..wire.codec import roundtrip
from ..wire.variants import VARIANTS_FILE, student_key
from ..wire.spec import Exercise
from ..wire.verdict import Verdict
from . import module, select, variants, verdict


def student_id() -> str:
    """Who this student is, as nbgrader's exchange names them: their JupyterHub user name, or
    their user name on this machine."""
    return os.environ.get("JUPYTERHUB_USER") or getpass.getuser()


class LocalJudge:
    """Scenarios from the public seeds and verdicts from the judges, in this process.

    Each scenario handed out is named once for the life of the kernel (a counter), so a
    check that stopped half-way (a failure, an interrupt, an error in the student's code)
    leaves behind a scenario that no later report can be matched with: every check is
    judged against the scenarios it was given itself. (The names were once the number of
    scenarios pending, so after one stopped check two scenarios shared a name and the next,
    right answer was judged against the wrong one.) At most ``MAX_PENDING`` unreported
    scenarios are kept, the oldest dropped first."""

    MAX_PENDING = 1000

    def __init__(self):
        self._issued: OrderedDict = OrderedDict()
        self._names = itertools.count()

    def scenarios(self, spec: Exercise, cases: str) -> list:
        judge = module(spec)
        issued = []
        for case in select(judge.CASES, cases):
            token = f"local-{next(self._names)}"
            data = judge.scenario(case, case["seed"])
            self._issued[token] = (judge, data)
            issued.append((token, data))
        while len(self._issued) > self.MAX_PENDING:
            self._issued.popitem(last=False)
        return issued

    def report(self, token: str, observation: dict) -> Verdict:
        issued = self._issued.pop(token, None)
        if issued is None:  # dropped, or never handed out
            return Verdict.fail("malformed", "judge.malformed")
        judge, data = issued
        return verdict(judge, data, observation)

    def value(self, spec: Exercise, answer, cases: str, **options) -> Verdict:
        """A value check's verdict, from the answer as the judge would receive it. Working
        alone on the published variant of a generated question, whose key is public, the
        verdict says whether the answer is right; in a course, only the judge knows."""
        question = options.get("question")
        if spec.check == "check_choice" and options.get("key") is None and isinstance(question, str) \
                and variants.has_variants(question) and self.self_study():
            options = {**options, "key": variants.variant(question, None).key}
        if spec.variants and options.get("variant") is None and cases == "visible":  # the code this student saw
            options = {**options, "variant": self.variant(spec.variants)}
        return module(spec).verify_value(roundtrip(answer), cases, **options)

    def parts(self, spec: Exercise, answer, cases: str, **options) -> list | None:
        """Working alone, a visible check of an answer in parts (predictions) judges every part,
        the graded ones included, on the published variant, whose truth is public: [(part,
        verdict)]. None in a course, or for an answer the judge does not take in parts."""
        judge = module(spec)
        if cases != "visible" or not hasattr(judge, "verify_parts") or not self.self_study():
            return None
        variant = self.variant(spec.variants) if spec.variants else None
        return judge.verify_parts(roundtrip(answer), variant=variant)

    def self_study(self) -> bool:
        """No course gave this notebook variants (``autograder variants`` writes them beside it)."""
        return not Path(VARIANTS_FILE).exists()

    def variant(self, question: str) -> dict | None:
        """The variant this student's notebook shows: theirs from the course's variants file,
        found by their id (``student_id``), or the published one."""
        if not variants.has_variants(question):
            return None
        try:
            with open(VARIANTS_FILE, encoding="utf-8") as f:
                mine = json.load(f)["students"].get(student_key(student_id()), {})
            shown = mine.get(question)
        except (OSError, ValueError, KeyError, AttributeError, TypeError):
            shown = None
        if (isinstance(shown, dict) and isinstance(shown.get("code"), str) and isinstance(shown.get("order"), list)
                and isinstance(shown.get("params"), dict)):
            return shown
        return {**variants.variant(question, None).shown(), "missing": not self.self_study()}
