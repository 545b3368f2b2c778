"""The class's most common mistakes, read from the autograded notebooks.

Each failed test cell's message is matched back to the message template it came
from (the locale files), so the summary counts named mistakes, not strings.
"""
from __future__ import annotations

import functools
import json
import re
import string
from collections import Counter
from pathlib import Path

from . import messages


def _walk(node, prefix=""):
    for key, value in node.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            yield from _walk(value, name)
        elif isinstance(value, str):
            yield name, value


def _pattern(template: str) -> re.Pattern:
    parts = []
    for literal, field_name, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field_name is not None:
            parts.append(".*?")
    return re.compile("^" + "".join(parts) + "$", re.S)


@functools.cache
def _patterns() -> list:
    from lessons.text import _LESSONS

    found = []
    for catalogue in (messages._GRADER, _LESSONS):
        for key, template in _walk(catalogue.catalogue(messages.language())):
            if "{" in template or len(template) > 30:
                found.append((key, _pattern(template)))
    # longer templates first: the most specific match wins
    return sorted(found, key=lambda kp: -len(kp[1].pattern))


def identify(message: str) -> str:
    """The message key a grader message was made from, or 'other'."""
    for key, pattern in _patterns():
        if pattern.match(message.strip()):
            return key
    return "other"


def failures(notebook_path: Path) -> list:
    """(grade id, error name, message) of each test cell with an error output."""
    nb = json.loads(Path(notebook_path).read_text())
    found = []
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not meta.get("grade"):
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                found.append((meta.get("grade_id"), out.get("ename", ""), out.get("evalue", "")))
    return found


def common_mistakes(root: Path, assignment: str, students: list, top: int = 8) -> list:
    """[(message key, number of students)] for the most frequent mistakes."""
    counts: Counter = Counter()
    for student in students:
        keys = set()
        for path in (Path(root) / "autograded" / student / assignment).glob("*.ipynb"):
            keys |= {identify(message) if name == "AssertionError" else f"error: {name}"
                     for _, name, message in failures(path)}
        counts.update(keys)
    return counts.most_common(top)
