"""The class's most common mistakes, from the verdicts the judge recorded.

ApplyVerdicts keeps each judged test cell's verdict in the autograded notebook's cell
metadata (``autograder.verdict``): the mistake's id is counted once per student. A
test cell that failed in nbgrader's run without a failing verdict (a kernel that died,
a timeout) is counted by the error's name.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ...wire import reported
from ...wire.verdict import Verdict
from ..printable import printable


@dataclass(frozen=True)
class Failed:
    """A failed test cell of an autograded notebook."""
    grade_id: str
    mistake: str  # the verdict's mistake id, or "error:<name>" for an error without a failing verdict
    key: str = ""  # the verdict's message key ("" without a verdict)
    fields: dict = field(default_factory=dict, compare=False, hash=False)  # the message's fields
    error: str = ""  # "name: value" of the cell's first error, as its output shows it


def failed_cells(nb: dict) -> list:
    """Each failed test cell of an autograded notebook (its JSON): ``Failed``."""
    found = []
    for cell in nb.get("cells", []):
        meta = cell.get("metadata", {}) if isinstance(cell, dict) else {}
        nbgrader = meta.get("nbgrader", {}) if isinstance(meta, dict) else {}
        if not isinstance(nbgrader, dict) or not nbgrader.get("grade"):
            continue
        grade_id = str(nbgrader.get("grade_id"))
        errors = [o for o in cell.get("outputs", []) if isinstance(o, dict) and o.get("output_type") == "error"]
        error = f"{errors[0].get('ename', '')}: {errors[0].get('evalue', '')}" if errors else ""
        verdict = meta.get("autograder", {}).get("verdict", {}) if isinstance(meta.get("autograder"), dict) else {}
        if isinstance(verdict, dict) and verdict and not verdict.get("ok", True):
            # fields as the grader and the judge read them (any verdict's shape; what a kernel may
            # report, for its messages): else none, and its message is the generic one
            mistake, key = str(verdict.get("mistake") or "other")[:100], str(verdict.get("key") or "")[:100]
            checked = Verdict.from_data(verdict)
            fields = checked.fields if checked.key == key else {}
            if key in reported.DECLARED and not reported.fits(mistake, key, fields):
                fields = {}
            found.append(Failed(grade_id, mistake, key, fields, error))
        elif errors:
            # (by its class's name, which the student's code chose: as text, 100 characters of it)
            found.append(Failed(grade_id, f"error:{printable(errors[0].get('ename', ''))}"[:100], error=error))
    return found


def mistakes_in(notebook_path: Path) -> list:
    """(grade id, mistake id) of each failed test cell of an autograded notebook."""
    nb = json.loads(Path(notebook_path).read_text())
    return [(failed.grade_id, failed.mistake) for failed in failed_cells(nb)]


def common_mistakes(root: Path, assignment: str, students: list, top: int = 8) -> list:
    """[(mistake id, number of students)] for the most frequent mistakes."""
    counts: Counter = Counter()
    for student in students:
        ids = set()
        for path in (Path(root) / "autograded" / student / assignment).glob("*.ipynb"):
            try:
                ids |= {mistake for _, mistake in mistakes_in(path)}
            except Exception:  # noqa: BLE001  (a notebook that cannot be read names no mistake; the others count)
                continue
        counts.update(ids)
    return counts.most_common(top)


def mistake_name(mistake: str) -> str:
    """A mistake's name in words (an error without a verdict: the error's name, which the
    student's code chose: without control characters, for the terminal it is printed on)."""
    from ... import messages

    if mistake.startswith("error:"):
        return messages.text("general.error_named", error=printable(mistake.removeprefix("error:")))
    return messages.text(f"mistakes.{mistake}") if messages.has(f"mistakes.{mistake}") else printable(mistake)
