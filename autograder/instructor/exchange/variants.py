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

from ... import messages
from ...judges import variants
from ...wire.variants import VARIANTS_FILE, file_data
from .. import course_secret, preflight
from ..preflight import refuse


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
    except preflight.Refusal as why:
        return refuse(why)
    except course_secret.SecretError:
        return refuse(messages.text("cli.secret_exists", path=course_secret.path(root)))
    except OSError as error:  # a course folder that cannot be written
        return refuse(messages.text("cli.secret_unwritable", path=course_secret.path(root),
                                    reason=f"{type(error).__name__}: {error.strerror or error}"))
    print(messages.text("cli.secret_written", path=made))
    return 0


def variants_command(args) -> int:
    try:
        root = preflight.course_folder(args.course)
        secret = preflight.readable_secret(root)
        if secret is None:
            raise preflight.Refusal(messages.text("cli.no_secret", folder=root))
        if not questions_of(args.assignment):
            raise preflight.Refusal(messages.text("cli.no_variants", assignment=args.assignment))
        config = preflight.readable_config(root, args.db_url)
        students = set(preflight.read_gradebook(config.CourseDirectory.db_url).students) | set(args.student or [])
        if not students:
            raise preflight.Refusal(messages.text("cli.no_students"))
    except preflight.Refusal as why:
        return refuse(why)
    target = write(root, args.assignment, secret, sorted(students))
    print(messages.text("cli.variants_written", count=len(students), path=target))
    return 0
