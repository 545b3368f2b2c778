"""The variants file: what each student's notebook shows of their own questions.

``autograder variants ASSIGNMENT`` (instructor) writes ``variants.json`` beside the released
notebook; a student's kernel reads its own entry, found by their JupyterHub user name. An
entry is a variant as a kernel may see it (``judges.variants.Variant.shown``: code, numbers
and the order of the options), never a key. Students are listed by a hash of their id, so
the file does not hand the class list to every student.
"""
from __future__ import annotations

import hashlib
import json

VARIANTS_FILE = "variants.json"


def student_key(student: str) -> str:
    """How the variants file names a student."""
    return hashlib.sha256(f"autograder-variant/{student}".encode()).hexdigest()[:24]


def file_data(assignment: str, shown_by_student: dict) -> dict:
    """The file's content: ``{student id: {question: shown variant}}`` → JSON data."""
    return {"assignment": assignment,
            "students": {student_key(student): shown for student, shown in sorted(shown_by_student.items())}}


def label(shown: dict) -> str:
    """A variant's short name, the same on both sides of the wire: shown in the question cell,
    named in the judge's message about a wrong answer and so in the feedback and the class
    report. It says which question the student answered, not its answer."""
    if shown.get("published"):
        return "published"
    fields = {k: shown[k] for k in ("question", "code", "order", "params")}
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:6]
