"""``autograder secret`` and ``autograder variants``: each student's own variant of every
generated question, in the notebook they fetch.

``secret`` makes the course secret (``course_secret``). ``variants ASSIGNMENT`` draws, for
every student in the gradebook (and each ``--student``), their variant of each generated
question of the assignment and writes what their notebook may show of it (code, numbers,
order of options; never a key) to ``release/ASSIGNMENT/variants.json``, which nbgrader's
``release_assignment`` hands out with the notebook. Run it again after adding students: a
student's variants never change while the secret stays the same.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ...judges import variants
from ...wire.variants import VARIANTS_FILE, file_data
from .. import course_secret
from ..grading import preflight
from ..grading.command import refuse


def questions_of(assignment: str) -> list:
    prefix = next((p for p, name in variants.ASSIGNMENT.items() if name == assignment), None)
    return sorted(q for q in variants.FAMILIES if prefix and q.startswith(f"{prefix}_"))


def write(root: Path, assignment: str, secret: bytes, students: list) -> Path:
    shown = {student: {q: variants.of_student(secret, q, student).shown() for q in questions_of(assignment)}
             for student in students}
    target = root / "release" / assignment / VARIANTS_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(".tmp")
    temporary.write_text(json.dumps(file_data(assignment, shown), indent=1, sort_keys=True) + "\n")
    os.replace(temporary, target)
    return target


def secret_command(args) -> int:
    try:
        root = preflight.course_folder(args.course)
        made = course_secret.make(root)
    except (preflight.Refusal, course_secret.SecretError) as why:
        return refuse(why)
    print(f"autograder: wrote the course secret to {made} (keep it out of git; keep it for the whole course)")
    return 0


def variants_command(args) -> int:
    try:
        root = preflight.course_folder(args.course)
        secret = course_secret.read(root)
        if secret is None:
            raise preflight.Refusal(f"{root} has no course secret, so every student gets the published "
                                    f"questions; run `autograder secret` first")
        if not questions_of(args.assignment):
            raise preflight.Refusal(f"{args.assignment} has no generated questions")
        config = preflight.readable_config(root, args.db_url)
        students = set(preflight.read_gradebook(config.CourseDirectory.db_url).students) | set(args.student or [])
        if not students:
            raise preflight.Refusal("the gradebook lists no students: add them (nbgrader db student add) "
                                    "or name them with --student")
    except (preflight.Refusal, course_secret.SecretError) as why:
        return refuse(why)
    target = write(root, args.assignment, secret, sorted(students))
    print(f"autograder: wrote the variants of {len(students)} students to {target}")
    return 0
