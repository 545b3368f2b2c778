"""The course secret: what makes each student's variant of a question their own.

``autograder secret`` makes one (32 random bytes, as hex) in ``course_secret`` next to
``nbgrader_config.py``, readable by its owner only and ignored by git; an instructor who
keeps secrets elsewhere sets ``AUTOGRADER_COURSE_SECRET`` instead, which wins. Only the
instructor's side reads it: the judge gets it with its settings (never its environment),
and ``autograder variants`` uses it to write what each student's notebook shows. Without
one, every student gets the published variant of every question, as on Binder.

Keep the same secret for the whole course: a new one gives every student new variants, and
the answers already in their notebooks would be judged against questions they never saw.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

FILE = "course_secret"
ENV = "AUTOGRADER_COURSE_SECRET"


class SecretError(RuntimeError):
    pass


def path(root: Path) -> Path:
    return Path(root) / FILE


def read(root: Path) -> bytes | None:
    """The course's secret, or None (the published variants)."""
    given = os.environ.get(ENV, "").strip()
    if given:
        return given.encode()
    try:
        text = path(root).read_text().strip()
    except FileNotFoundError:
        return None
    if not text:
        raise SecretError(f"{path(root)} is empty: delete it, or run `autograder secret` again")
    return text.encode()


def make(root: Path) -> Path:
    """Write a new secret; refuses to replace one (every student's variants would change)."""
    target = path(root)
    if target.exists():
        raise SecretError(f"{target} exists already: a new secret would give every student new questions")
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32) + "\n")
    return target
