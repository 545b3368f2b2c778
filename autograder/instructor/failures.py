"""A submission that could not be graded at all: why, in one line, and 0 on every question.

The reason is a message key (``grading.*`` in the locale files); the feedback page says
it in the notebook's language (the course's default, since the notebook could not be
read) and gives the score, 0. The instructor gets nbgrader's full log in
``autograder-logs/<assignment>/students/<student>.log``, whose first line names the
reason (the class report reads it); grading the submission successfully later removes it.
"""
from __future__ import annotations

import html
from pathlib import Path

from .. import messages
from . import files
from .printable import printable

FEEDBACK_RECORDS = ("timestamp.txt", "submission_secret.txt")  # nbgrader's, kept beside feedback

MISSING = "missing"
# what nbgrader's log says → the reason's key
MARKERS = (("NotJSONError", "not_json"), ("JSONDecodeError", "not_json"),
           ("Notebook does not appear to be JSON", "not_json"), ("ValidationError", "invalid"),
           ("No notebooks were matched", MISSING), ("No notebooks found", MISSING))


def reason_of(result: dict) -> str:
    """The reason key for an nbgrader result that failed."""
    text = (result.get("error") or "") + (result.get("log") or "")
    for marker, reason in MARKERS:
        if marker in text:
            return reason
    return "crashed"


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def describe(reason: str, notebook: str, lang: str | None = None) -> str:
    key = f"grading.reason_{reason}"
    if not messages.has(key):
        return reason  # a worker's fault, already in words
    return messages.render(key, {"notebook": notebook}, lang)


REASON = "could not be graded: "  # the first line of a student's log, before the reason


def log_path(root: Path, assignment: str, student: str) -> Path:
    return Path(root) / "autograder-logs" / assignment / "students" / f"{student}.log"


def keep_log(root: Path, assignment: str, student: str, result: dict, reason: str) -> None:
    """nbgrader's full log and traceback of a failed submission, for the instructor (who reads
    it in a terminal: what the student's notebook put in it keeps no control character)."""
    path = log_path(root, assignment, student)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = (result.get("log") or "") + "\n" + (result.get("error") or "")
    path.write_text(f"{REASON}{printable(reason)}\n" + printable(text, lines=True))


def forget_log(root: Path, assignment: str, student: str) -> None:
    """A submission graded normally: an earlier failure of it no longer stands."""
    log_path(root, assignment, student).unlink(missing_ok=True)


def recorded(root: Path, assignment: str) -> dict:
    """student → reason key, for each submission of ``assignment`` that could not be graded
    (or whose feedback could not be made) the last time it was graded."""
    folder = Path(root) / "autograder-logs" / assignment / "students"
    found = {}
    for path in sorted(folder.glob("*.log")) if folder.is_dir() else []:
        try:
            with path.open(encoding="utf-8", errors="replace") as f:
                first = f.readline().strip()
        except OSError:
            continue
        found[path.stem] = first.removeprefix(REASON) if first.startswith(REASON) else reason_of({"log": path.read_text(errors="replace")})
    return found


def zero_submission(db_url: str, coursedir, assignment: str, student: str, reason: str) -> None:
    """0 on every question of a submission that could not be graded, and a feedback page
    that says why."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url, coursedir.course_id) as gb:
        gb.update_or_create_student(student)
        submission = gb.update_or_create_submission(assignment, student)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                grade.auto_score = 0
                grade.needs_manual_grade = False
            gb.db.commit()
            folder = Path(coursedir.format_path(coursedir.feedback_directory, student, assignment))
            folder.mkdir(parents=True, exist_ok=True)
            text = describe(reason, f"{notebook.name}.ipynb")
            title = html.escape(notebook.name)
            score = html.escape(messages.text("grading.score", score=0, max_score=notebook.max_score))
            (folder / f"{notebook.name}.html").write_text(
                f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head>"
                f"<body><h1>{title}</h1><p>{html.escape(text)}</p><p>{score}</p></body></html>")
            # `nbgrader release_feedback` reads these beside every feedback file (and stops
            # for the whole class if they are missing); nbgrader's feedback copies them too
            submitted = Path(coursedir.format_path(coursedir.submitted_directory, student, assignment))
            for name in FEEDBACK_RECORDS:
                (folder / name).unlink(missing_ok=True)
            files.copy_regular(submitted, folder, skip=lambda name: name not in FEEDBACK_RECORDS, max_bytes=2 ** 16)
