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
            fields = verdict.get("fields")
            found.append(Failed(grade_id, str(verdict.get("mistake") or "other"), str(verdict.get("key") or ""),
                                fields if isinstance(fields, dict) else {}, error))
        elif errors:
            found.append(Failed(grade_id, f"error:{errors[0].get('ename', '')}", error=error))
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
            ids |= {mistake for _, mistake in mistakes_in(path)}
        counts.update(ids)
    return counts.most_common(top)


def mistake_name(mistake: str) -> str:
    """A mistake's name in words (an error without a verdict: the error's name)."""
    from ... import messages

    if mistake.startswith("error:"):
        return messages.text("general.error_named", error=mistake.removeprefix("error:"))
    return messages.text(f"mistakes.{mistake}") if messages.has(f"mistakes.{mistake}") else mistake
