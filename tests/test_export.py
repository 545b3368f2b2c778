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

from autograder.instructor.passes.export import CellCsvExportPlugin, cells_file

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
