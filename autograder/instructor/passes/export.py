"""``nbgrader export`` with every cell's scores and comments.

nbgrader's own CSV export has one line per student and assignment, and no comments: what
an instructor wrote in formgrader stays in the gradebook. ``CellCsvExportPlugin`` writes
that same file (``grades.csv``: nbgrader's columns and values, for whatever reads it today,
but quoted where needed: nbgrader's breaks on a name with a comma) and next to it
``grades_by_cell.csv``: one line per graded or commented cell of every submitted
notebook, with its automatic, manual and final score and the comment the student sees.

    c.ExportApp.plugin_class = "autograder.instructor.passes.export.CellCsvExportPlugin"

in ``nbgrader_config.py``, then ``nbgrader export`` (``--to``, ``--assignment`` and
``--student`` work as for nbgrader's exporter; ``--CellCsvExportPlugin.cells_to=FILE``
names the second file). ``autograder grade`` writes ``grades.csv`` with it too.

A spreadsheet or a learning management system opens these files, and some of their text is
not the instructor's: a student id (a folder's name, where students share one Unix user), a
name from an LMS. So every file is written by ``csv`` (a comma, a quote or a new line stays
inside its field: nbgrader's own export wrote ``alice,10`` as an id that added a column), every
line break is a new line (a lone carriage return, which ``csv`` does not quote, split a row),
and a text that a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@``, a tab or a
carriage return first, OWASP's list, and their full-width forms) starts with a ``'``, which
shows it as text. Numbers stay numbers: a score of ``-1.5`` is written as it is, as is a text
that is only a number.
"""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin
from traitlets import Unicode

SUMMARY_COLUMNS = [
    "assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
    "raw_score", "late_submission_penalty", "score", "max_score",
]
CELL_COLUMNS = [
    "assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
    "notebook", "cell", "kind", "max_score", "auto_score", "manual_score", "extra_credit",
    "score", "needs_manual_grade", "comment", "auto_comment",
]


def cells_file(to: str) -> str:
    """``grades.csv`` → ``grades_by_cell.csv`` (beside it)."""
    path = Path(to or "grades.csv")
    return str(path.with_name(f"{path.stem}_by_cell{path.suffix or '.csv'}"))


class CellCsvExportPlugin(ExportPlugin):
    """nbgrader's CSV export, plus one line per cell with its scores and comment."""

    cells_to = Unicode(
        "", help="Where the per-cell scores and comments go (default: beside --to, "
                 "e.g. grades_by_cell.csv)").tag(config=True)

    def export(self, gradebook: Gradebook) -> None:
        summary = self.to or "grades.csv"
        dest = self.cells_to or cells_file(summary)
        self.log.info("Exporting grades to %s, scores and comments of every cell to %s", summary, dest)
        self.export_summary(gradebook, summary)
        write_csv(dest, CELL_COLUMNS, self.cell_rows(gradebook))

    def export_summary(self, gradebook: Gradebook, to: str) -> None:
        """``grades.csv`` alone (what ``autograder grade`` exports)."""
        write_csv(to, SUMMARY_COLUMNS, self.summary_rows(gradebook))

    def _selected(self, gradebook: Gradebook):
        """(assignment, student, submission or None) for the selected ones, in nbgrader's order."""
        students = {str(s) for s in self.student}
        assignments = {str(a) for a in self.assignment}
        for assignment in gradebook.assignments:
            if assignments and assignment.name not in assignments:
                continue
            for student in gradebook.students:
                if students and student.id not in students:
                    continue
                try:
                    submission = gradebook.find_submission(assignment.name, student.id)
                except MissingEntry:
                    submission = None
                yield assignment, student, submission

    @staticmethod
    def _who(assignment, student, submission) -> dict:
        return {"assignment": assignment.name, "duedate": _blank(assignment.duedate),
                "timestamp": _blank(submission.timestamp) if submission else "",
                "student_id": student.id, "last_name": _blank(student.last_name),
                "first_name": _blank(student.first_name), "email": _blank(student.email)}

    def summary_rows(self, gradebook: Gradebook):
        """nbgrader's CsvExportPlugin lines: one per student and assignment, 0 if not submitted."""
        for assignment, student, submission in self._selected(gradebook):
            row = self._who(assignment, student, submission)
            row["max_score"] = assignment.max_score
            if submission is None:
                row.update(raw_score=0.0, late_submission_penalty=0.0, score=0.0)
            else:
                penalty = submission.late_submission_penalty
                row.update(raw_score=submission.score, late_submission_penalty=penalty,
                           score=max(0.0, submission.score - penalty))
            yield {key: _blank(value) for key, value in row.items()}

    def cell_rows(self, gradebook: Gradebook):
        """One dict per graded or commented cell of every submission (in the notebook's
        order), for the selected assignments and students."""
        for assignment, student, submission in self._selected(gradebook):
            if submission is None:
                continue  # nothing submitted: the summary already says 0
            common = self._who(assignment, student, submission)
            for notebook in submission.notebooks:
                yield from self._notebook_rows(common, assignment.name, notebook)

    def _notebook_rows(self, common: dict, assignment: str, notebook):
        cells: dict = {}
        for grade in notebook.grades:
            cells.setdefault(grade.name, {})["grade"] = grade
        for comment in notebook.comments:
            cells.setdefault(comment.name, {})["comment"] = comment
        order = self._cell_order(assignment, notebook.name)
        for name in sorted(cells, key=lambda n: (order.get(n, len(order)), n)):
            grade, comment = cells[name].get("grade"), cells[name].get("comment")
            row = dict(common, notebook=notebook.name, cell=name, kind=_kind(grade, comment))
            if grade is not None:
                row.update(max_score=grade.max_score, auto_score=_blank(grade.auto_score),
                           manual_score=_blank(grade.manual_score),
                           extra_credit=_blank(grade.extra_credit), score=grade.score,
                           needs_manual_grade=grade.needs_manual_grade)
            if comment is not None:
                row.update(comment=comment.comment or "", auto_comment=comment.auto_comment or "")
            yield row

    def _cell_order(self, assignment: str, notebook: str) -> dict:
        """grade id → position in the instructor's source notebook (empty if not found)."""
        coursedir = getattr(self.parent, "coursedir", None)
        if coursedir is None:
            return {}
        path = Path(coursedir.format_path(coursedir.source_directory, ".", assignment)) / f"{notebook}.ipynb"
        try:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        except (OSError, ValueError, KeyError):
            return {}
        ids = [c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in cells]
        return {grade_id: i for i, grade_id in enumerate(ids) if grade_id}


def _kind(grade, comment) -> str:
    """nbgrader's cell types, as an instructor calls them."""
    if "TaskCell" in {x.cell.type for x in (grade, comment) if x is not None}:
        return "task"
    if grade is not None and comment is not None:
        return "manually graded answer"
    return "test" if grade is not None else "answer"


def _blank(value):
    return "" if value is None else value


# what makes a spreadsheet read a cell as a formula (OWASP's CSV injection list, and the
# full-width forms some spreadsheets read the same way)
FORMULA_FIRST = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")
NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


def spreadsheet_cell(value):
    """``value`` as a CSV cell a spreadsheet opens safely: a number as it is (negative ones
    too), any other value as text, its line breaks new lines, with a ``'`` first if a
    spreadsheet would read it as a formula (see the module)."""
    if value is None:
        return ""
    if isinstance(value, (bool, int, float)):
        return value
    text = str(value).replace("\r\n", "\n").replace("\r", "\n")
    first = text.lstrip(" ")[:1]
    if first in FORMULA_FIRST and not NUMBER.fullmatch(text.strip()):
        return "'" + text
    return text


def write_csv(path: str, columns: list, rows) -> None:
    """Rows (dicts) under a header, every field through ``spreadsheet_cell``."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        write_rows(f, columns, rows)


def write_rows(f, columns: list, rows) -> None:
    """``write_csv`` into a file already open (text, ``newline=""``)."""
    writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows({key: spreadsheet_cell(value) for key, value in row.items()} for row in rows)
