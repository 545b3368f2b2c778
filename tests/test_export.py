"""The per-cell export (autograder.instructor.passes.export) on a gradebook built with nbgrader's
own API: every cell's scores and the comment the student sees, CSV that survives commas,
quotes and new lines, nbgrader's filters, and nbgrader's own grades.csv still written."""
from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from nbgrader.api import Gradebook
from nbgrader.coursedir import CourseDirectory
from nbgrader.plugins import CsvExportPlugin
from traitlets import Instance
from traitlets.config import LoggingConfigurable

from autograder.instructor.passes.export import CELL_COLUMNS, SUMMARY_COLUMNS, CellCsvExportPlugin, cells_file

# source order of the cells in the notebook (not alphabetical)
SOURCE = ["q1_answer", "q1_tests", "essay", "plot_task", "q2_answer", "q2_tests"]
COMMENT = 'Good, but see line 3: "zero_grad()" goes first,\nbefore backward().'


pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # nbgrader's own, harmless


class FakeApp(LoggingConfigurable):
    """What the plug-in sees of ``nbgrader export``: its course directory."""
    coursedir = Instance(CourseDirectory)


@pytest.fixture(scope="module")
def gradebook_file(tmp_path_factory, new_gradebook):
    """A gradebook made once; tests copy it."""
    tmp_path = tmp_path_factory.mktemp("gradebook")
    make_gradebook(new_gradebook(tmp_path / "gradebook.db"))
    return tmp_path / "gradebook.db"


@pytest.fixture
def course(tmp_path, gradebook_file):
    shutil.copy(gradebook_file, tmp_path / "gradebook.db")
    source = tmp_path / "source" / "hw1"
    source.mkdir(parents=True)
    cells = [{"cell_type": "code", "metadata": {"nbgrader": {"grade_id": name}}, "source": ""}
             for name in SOURCE]
    (source / "hw1.ipynb").write_text(json.dumps({"cells": cells}))
    return tmp_path, f"sqlite:///{tmp_path / 'gradebook.db'}"


def make_gradebook(db):
    with Gradebook(db) as gb:
        gb.add_assignment("hw1", duedate="2030-01-01 12:00:00")
        gb.add_assignment("hw2")
        gb.add_notebook("hw1", "hw1")
        gb.add_notebook("hw2", "hw2")
        gb.add_grade_cell("q1_tests", "hw1", "hw1", max_score=2, cell_type="code")
        gb.add_grade_cell("q2_tests", "hw1", "hw1", max_score=3, cell_type="code")
        gb.add_solution_cell("q1_answer", "hw1", "hw1")
        gb.add_solution_cell("q2_answer", "hw1", "hw1")
        gb.add_grade_cell("essay", "hw1", "hw1", max_score=4, cell_type="markdown")
        gb.add_solution_cell("essay", "hw1", "hw1")
        gb.add_task_cell("plot_task", "hw1", "hw1", max_score=1, cell_type="markdown")
        gb.add_grade_cell("only", "hw2", "hw2", max_score=1, cell_type="code")
        gb.add_student("alice", first_name="Alice", last_name="Doe, Jr.", email="a@x.org")
        gb.add_student("bob")  # submits nothing
        gb.add_student("carol")
        gb.add_submission("hw1", "alice", timestamp="2030-01-01 11:00:00")
        gb.add_submission("hw1", "carol", timestamp="2030-01-02 12:00:00")
        gb.add_submission("hw2", "alice")
        for name, auto in [("q1_tests", 2), ("q2_tests", 0), ("essay", None), ("plot_task", None)]:
            gb.find_grade(name, "hw1", "hw1", "alice").auto_score = auto
        gb.find_grade("q2_tests", "hw1", "hw1", "alice").manual_score = 1.5
        gb.find_grade("essay", "hw1", "hw1", "alice").manual_score = 3
        gb.find_grade("essay", "hw1", "hw1", "alice").extra_credit = 0.5
        gb.find_comment("q2_answer", "hw1", "hw1", "alice").manual_comment = COMMENT
        gb.find_comment("q1_answer", "hw1", "hw1", "alice").auto_comment = "No response."
        gb.find_comment("essay", "hw1", "hw1", "alice").auto_comment = "No response."
        gb.find_comment("essay", "hw1", "hw1", "alice").manual_comment = "Clear."
        gb.db.commit()


def export(course, **traits):
    root, db = course
    app = FakeApp(coursedir=CourseDirectory(root=str(root)))
    plugin = CellCsvExportPlugin(parent=app, to=str(root / "grades.csv"), **traits)
    with Gradebook(db) as gb:
        plugin.export(gb)
    with open(root / "grades_by_cell.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_every_cell_of_every_submission_with_its_scores_and_comment(course):
    rows = export(course)
    alice = [r for r in rows if r["student_id"] == "alice" and r["assignment"] == "hw1"]
    assert [r["cell"] for r in alice] == SOURCE  # the notebook's order
    by_cell = {r["cell"]: r for r in alice}
    assert by_cell["q2_answer"]["comment"] == COMMENT  # commas, quotes and a new line survive
    assert by_cell["q2_answer"]["kind"] == "answer" and by_cell["q2_answer"]["score"] == ""
    assert by_cell["q2_tests"]["kind"] == "test"
    assert (by_cell["q2_tests"]["auto_score"], by_cell["q2_tests"]["manual_score"],
            by_cell["q2_tests"]["score"], by_cell["q2_tests"]["max_score"]) == ("0.0", "1.5", "1.5", "3.0")
    assert by_cell["q1_tests"]["score"] == "2.0" and by_cell["q1_tests"]["manual_score"] == ""
    essay = by_cell["essay"]
    assert essay["kind"] == "manually graded answer"
    assert (essay["score"], essay["extra_credit"], essay["comment"], essay["auto_comment"]) == \
        ("3.5", "0.5", "Clear.", "No response.")
    assert by_cell["q1_answer"]["comment"] == "No response."
    assert by_cell["plot_task"]["kind"] == "task" and by_cell["plot_task"]["score"] == "0.0"
    assert alice[0]["last_name"] == "Doe, Jr." and alice[0]["timestamp"].startswith("2030-01-01 11:00")
    assert alice[0]["duedate"].startswith("2030-01-01 12:00")
    # nobody else's comment leaks into carol's rows; bob submitted nothing and has no rows
    carol = [r for r in rows if r["student_id"] == "carol"]
    assert len(carol) == len(SOURCE) and not any(r["comment"] for r in carol)
    assert not [r for r in rows if r["student_id"] == "bob"]
    assert [r["cell"] for r in rows if r["assignment"] == "hw2"] == ["only"]


def test_the_summary_is_nbgraders_csv_quoted_where_needed(course):
    root, db = course
    export(course)
    with open(root / "grades.csv", newline="") as f:
        summary = {(r["assignment"], r["student_id"]): r for r in csv.DictReader(f)}
    assert len(summary) == 6  # every student × every assignment, as nbgrader writes it
    alice = summary[("hw1", "alice")]
    assert (alice["last_name"], float(alice["raw_score"]), float(alice["max_score"])) == ("Doe, Jr.", 7.0, 10.0)
    assert float(summary[("hw1", "bob")]["score"]) == 0 and summary[("hw1", "bob")]["timestamp"] == ""

    # without a comma in a name, the file is byte for byte nbgrader's own
    with Gradebook(db) as gb:
        gb.update_or_create_student("alice", last_name="Doe")
        CsvExportPlugin(to=str(root / "nbgrader.csv")).export(gb)
    export(course)
    assert (root / "grades.csv").read_text() == (root / "nbgrader.csv").read_text()


def test_filters_select_students_and_assignments(course):
    rows = export(course, student=["carol"], assignment=["hw1"])
    assert {(r["student_id"], r["assignment"]) for r in rows} == {("carol", "hw1")}
    assert export(course, student=["bob"]) == []


def test_without_the_source_notebook_cells_come_in_name_order(course):
    root, _ = course
    (root / "source" / "hw1" / "hw1.ipynb").unlink()
    alice = [r["cell"] for r in export(course) if r["student_id"] == "alice" and r["assignment"] == "hw1"]
    assert alice == sorted(SOURCE)


def test_cells_file_sits_beside_the_summary():
    assert cells_file("") == "grades_by_cell.csv"
    assert cells_file("out/marks.csv") == str(Path("out/marks_by_cell.csv"))


# ids and names as a gradebook may hold them (nbgrader db student add, an LMS's list): a CSV
# line of their own, quotes, line breaks, and what a spreadsheet reads as a formula
FORGING = {
    "mallory,10,10": ("Smith, Jr.", "=HYPERLINK(\"http://zz-attacker.invalid\",\"grades\")"),
    "eve\"\n,99": ("+1+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0"),
    "trent\r,99,99": ("-2+3+cmd|' /C calc'!A0", "\t=1+1"),
    "peggy": ("\r=1+1", "＝1+1"),
    "victor": (" =1+1", "-"),
    "walter": ("-1.5", "+33"),  # a number is no formula: it stays as it is
}
SPREADSHEET_FORMULA = ("=", "+", "-", "@", "\t", "\r", "\n", "＝", "＋", "－", "＠")  # OWASP's, and full-width


def _formulas(rows: list) -> list:
    """The cells of ``rows`` that a spreadsheet would read as a formula (not a number)."""
    found = []
    for row in rows:
        for cell in row:
            first = cell.lstrip(" ")[:1]
            if first in SPREADSHEET_FORMULA:
                try:
                    float(cell)
                except ValueError:
                    found.append(cell)
    return found


def test_no_id_or_name_forges_a_column_a_row_or_a_formula(course):
    """Read back with ``csv``: one line per student and assignment, each with the header's columns,
    every id and name whole, nothing a spreadsheet would run (a ``'`` first), numbers as numbers,
    a negative score too; the per-cell file as well."""
    root, db = course
    with Gradebook(db) as gb:
        for student, (last, first) in FORGING.items():
            gb.add_student(student, last_name=last, first_name=first)
        gb.add_submission("hw1", "walter")
        gb.find_grade("q1_tests", "hw1", "hw1", "walter").manual_score = -1.5  # a penalty given by hand
        gb.find_comment("q1_answer", "hw1", "hw1", "walter").manual_comment = "=1+1\r\nsee\rme"
        gb.db.commit()
    export(course)
    for name, columns in (("grades.csv", SUMMARY_COLUMNS), ("grades_by_cell.csv", CELL_COLUMNS)):
        with open(root / name, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        assert rows[0] == columns and all(len(row) == len(columns) for row in rows), name
        assert not _formulas(rows[1:]), (name, _formulas(rows[1:]))
    with open(root / "grades.csv", newline="", encoding="utf-8") as f:
        summary = {(r["assignment"], r["student_id"]): r for r in csv.DictReader(f)}
    assert len(summary) == 2 * (3 + len(FORGING))
    for student, (last, first) in FORGING.items():
        row = summary[("hw1", student.replace("\r", "\n"))]  # (a line break is a new line in the file)
        for value, original in ((row["last_name"], last), (row["first_name"], first)):
            original = original.replace("\r", "\n")  # whole, a ' first only if it would be a formula
            assert value == ("'" + original if _formulas([[original]]) else original), (student, value)
    walter = summary[("hw1", "walter")]
    assert (walter["last_name"], walter["first_name"]) == ("-1.5", "+33")
    assert float(walter["raw_score"]) == -1.5 and walter["raw_score"] == "-1.5"  # a number, not "'-1.5"
    assert summary[("hw1", "mallory,10,10")]["first_name"] == "'=HYPERLINK(\"http://zz-attacker.invalid\",\"grades\")"
    with open(root / "grades_by_cell.csv", newline="", encoding="utf-8") as f:
        cells = {(r["student_id"], r["cell"]): r for r in csv.DictReader(f)}
    assert cells[("walter", "q1_answer")]["comment"] == "'=1+1\nsee\nme"
    assert cells[("walter", "q1_tests")]["score"] == "-1.5"


def test_nbgraders_own_export_is_forged_by_such_an_id(course):
    """What the course's export is for: nbgrader's writes an id's comma as a column of its own."""
    root, db = course
    with Gradebook(db) as gb:
        gb.add_student("mallory,10,10")
        CsvExportPlugin(to=str(root / "nbgrader.csv")).export(gb)
    with open(root / "nbgrader.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert any(len(row) != len(rows[0]) for row in rows)


def test_autograder_grade_exports_with_the_course_exporter(course):
    """``autograder grade``'s export (``worker.export``, where nbgrader is loaded: a local run's
    worker, a Dask run's own process) writes grades.csv as ``nbgrader export`` does with the
    course's exporter."""
    from traitlets.config import Config

    from autograder.instructor.grading import worker

    root, db = course
    with Gradebook(db) as gb:
        gb.add_student("mallory,10,10", first_name="=1+1")
    config = Config()
    config.CourseDirectory.db_url = db
    path = worker.export(str(root), config, "grades.csv")
    assert path == str(root / "grades.csv")
    written = (root / "grades.csv").read_text()
    export(course)  # the course's exporter, as `nbgrader export` runs it
    assert written == (root / "grades.csv").read_text() and "'=1+1" in written
