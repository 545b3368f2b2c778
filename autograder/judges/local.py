"""The judge of a student working on their own: in their kernel, with the public seeds.

Without the grader there is no judge process, and no point to decide: a student's own
``check_*`` call gets its verdict from the same judges, on the public scenarios (the ones
the visible test cell shows), so the feedback is the same as when grading. The kernel's
connection (``kernel.connection.judge``) makes one of these only when no grader's judge is
connected; a grading kernel never imports this package.
"""
from __future__ import annotations

import getpass
import json
import os
from pathlib import Path

from ..wire.codec import roundtrip
from ..wire.variants import VARIANTS_FILE, student_key
from ..wire.spec import Exercise
from ..wire.verdict import Verdict
from . import module, select, variants


def student_id() -> str:
    """Who this student is, as nbgrader's exchange names them: their JupyterHub user name, or
    their user name on this machine."""
    return os.environ.get("JUPYTERHUB_USER") or getpass.getuser()


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
