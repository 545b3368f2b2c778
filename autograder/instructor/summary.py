"""The class's most common mistakes, from the verdicts the judge recorded.

ApplyVerdicts keeps each judged test cell's verdict in the autograded notebook's cell
metadata (``autograder.verdict``): the mistake's id is counted once per student. A
test cell that failed in nbgrader's run without a failing verdict (a kernel that died,
a timeout) is counted by the error's name.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path


def mistakes_in(notebook_path: Path) -> list:
    """(grade id, mistake id) of each failed test cell of an autograded notebook."""
    nb = json.loads(Path(notebook_path).read_text())
    found = []
    for cell in nb["cells"]:
        meta = cell.get("metadata", {})
        grade_id = meta.get("nbgrader", {}).get("grade_id")
        if not meta.get("nbgrader", {}).get("grade"):
            continue
        verdict = meta.get("autograder", {}).get("verdict", {})
        if verdict and not verdict.get("ok", True):
            found.append((grade_id, verdict.get("mistake") or "other"))
            continue
        errors = [o.get("ename", "") for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if errors:
            found.append((grade_id, f"error:{errors[0]}"))
    return found


def common_mistakes(root: Path, assignment: str, students: list, top: int = 8) -> list:
    """[(mistake id, number of students)] for the most frequent mistakes."""
    counts: Counter = Counter()
    for student in students:
        ids = set()
        for path in (Path(root) / "autograded" / student / assignment).glob("*.ipynb"):
            ids |= {mistake for _, mistake in mistakes_in(path)}
        counts.update(ids)
    return counts.most_common(top)
