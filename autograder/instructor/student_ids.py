"""Which student ids the course accepts: plain identifiers, nothing else.

A student id reaches folder names, file paths, HTML pages (formgrader, the class report,
feedback), CSV exports that spreadsheets and learning management systems import, and the
instructor's terminal. Where students share one Unix user (``ExchangeCollect.check_owner =
False``) or ids come from an LMS launch, the id is the student's to choose, so it is checked
once, where it enters the course, and refused unless it is plain: a letter or digit first,
then letters, digits and ``_ . @ -``, at most 64 characters (JupyterHub's and nbgrader's
usual names, e-mail addresses included). Such an id holds no markup, no separator of a CSV
line or of nbgrader's exchange names (``+``), no path separator and no formula prefix
(``= + - @`` first).
"""
from __future__ import annotations

import re

MAX_LENGTH = 64
PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]*")


def refusal(student_id) -> str | None:
    """Why ``student_id`` is not accepted (in English, for the instructor), or None if it is plain."""
    if not isinstance(student_id, str) or not student_id:
        return "it is empty"
    if len(student_id) > MAX_LENGTH:
        return f"it is longer than {MAX_LENGTH} characters"
    if not PLAIN.fullmatch(student_id):
        return ("it is not a plain identifier (a letter or digit first, then only letters, digits "
                "and _ . @ -)")
    return None


def is_plain(student_id) -> bool:
    return refusal(student_id) is None
