"""OverwriteCellsInLanguage: locked cells come back as the instructor wrote them, markdown in
the notebook's language; code and tests exactly as nbgrader's OverwriteCells puts them back."""
from __future__ import annotations

import copy
import warnings

import nbformat
from helpers import ROOT
from nbformat.v4 import new_code_cell, new_notebook
from nbgrader import utils
from nbgrader.api import Gradebook
from nbgrader.preprocessors import OverwriteCells
from traitlets.config import Config

from autograder.instructor.passes.overwrite_cells import (
    OverwriteCellsInLanguage,
    give_ids,
)


def _locked(cell, grade_id, **extra):
    cell.metadata.nbgrader = {"grade": False, "solution": False, "locked": True, "grade_id": grade_id,
                              "schema_version": 3, **extra}
    cell.metadata.nbgrader["checksum"] = utils.compute_checksum(cell)
    return cell


NAME = "03_zeroing_grad"


def _course(tmp_path, new_gradebook):
    """A course holding lesson 3's source notebook, a gradebook with two of its cells (the
    English title and a test), and a student's notebook of those two cells."""
    source = nbformat.read(str(ROOT / "source" / NAME / f"{NAME}.ipynb"), as_version=4)
    intro = next(c for c in source.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "title")
    intro = _locked(copy.deepcopy(intro), "title")
    test = _locked(new_code_cell("check_train_loop(train)"), "tests", grade=True, points=4)
    (tmp_path / "source" / NAME).mkdir(parents=True)
    nbformat.write(source, str(tmp_path / "source" / NAME / f"{NAME}.ipynb"))
    db = new_gradebook(tmp_path / "gradebook.db")
    with Gradebook(db) as gb:
        gb.add_assignment(NAME)
        gb.add_notebook(NAME, NAME)
        for cell in (intro, test):
            gb.update_or_create_source_cell(cell.metadata.nbgrader["grade_id"], NAME, NAME, cell_type=cell.cell_type,
                                            locked=True, source=cell.source,
                                            checksum=cell.metadata.nbgrader["checksum"])
        gb.update_or_create_grade_cell("tests", NAME, NAME, max_score=4, cell_type="code")
    student = new_notebook(cells=[copy.deepcopy(intro), copy.deepcopy(test)])
    student.cells[1].source = "pass  # the student's edit of a locked test"
    resources = {"nbgrader": {"notebook": NAME, "assignment": NAME, "db_url": db}}
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    return student, resources, config, intro.source


def _overwritten(student, resources, config, language=None, text=None):
    student = copy.deepcopy(student)
    if language is not None:
        student.metadata["autograd_lessons"] = {"language": language}
    if text is not None:
        student.cells[0].source = text
    return OverwriteCellsInLanguage(config=config).preprocess(student, copy.deepcopy(resources))[0]


SCRIPT = "# Lesson 3\n<script>fetch('/api/contents')</script><img src=x onerror=alert(1)>"


def test_locked_prose_comes_back_in_the_notebooks_language_whatever_the_student_wrote(tmp_path, new_gradebook):
    from autograder.instructor.course import read_prose

    student, resources, config, english = _course(tmp_path, new_gradebook)
    spanish = read_prose("es", NAME)["title"].strip("\n")
    for language, text, expected in [("es", SCRIPT, spanish), ("es", spanish, spanish), ("es", None, spanish),
                                     ("en", SCRIPT, english), (None, SCRIPT, english),
                                     ("../../../tmp/evil", SCRIPT, english), ("zh", SCRIPT,
                                                                             read_prose("zh", NAME)["title"].strip())]:
        ours = _overwritten(student, resources, config, language, text)
        assert ours.cells[0].source == expected, (language, text)
    theirs, _ = OverwriteCells().preprocess(copy.deepcopy(student), copy.deepcopy(resources))
    ours = _overwritten(student, resources, config, "es")
    assert ours.cells[1].source == theirs.cells[1].source == "check_train_loop(train)"
    assert ours.cells[1].metadata == theirs.cells[1].metadata


def test_a_deleted_test_comes_back_with_an_id(tmp_path, new_gradebook):
    """nbgrader puts a deleted test cell back without a cell id (nbformat then warns on the
    instructor's terminal); ours gets one, unlike any other id of the notebook."""
    answer = new_code_cell("def train(): ...")
    answer.metadata.nbgrader = {"grade": False, "solution": True, "locked": False, "grade_id": "answer",
                                "schema_version": 3}
    test = _locked(new_code_cell("check_train_loop(train)"), "tests", grade=True, points=4)
    db = new_gradebook(tmp_path / "gradebook.db")
    with Gradebook(db) as gb:
        gb.add_assignment("a")
        gb.add_notebook("nb", "a")
        for cell in (answer, test):
            gb.update_or_create_source_cell(cell.metadata.nbgrader["grade_id"], "nb", "a", cell_type="code",
                                            locked=cell.metadata.nbgrader["locked"], source=cell.source,
                                            checksum=cell.metadata.nbgrader.get("checksum"))
        gb.update_or_create_solution_cell("answer", "nb", "a")
        gb.update_or_create_grade_cell("tests", "nb", "a", max_score=4, cell_type="code")
    student = new_notebook(cells=[copy.deepcopy(answer)])  # the test cell deleted
    student.cells[0].id = "tests-restored"  # the id ours would choose first
    resources = {"nbgrader": {"notebook": "nb", "assignment": "a", "db_url": db}}
    ours, _ = OverwriteCellsInLanguage(add_missing_cells=True).preprocess(copy.deepcopy(student),
                                                                            copy.deepcopy(resources))
    theirs, _ = OverwriteCells(add_missing_cells=True).preprocess(copy.deepcopy(student), copy.deepcopy(resources))
    assert "id" not in theirs.cells[1]  # what plain nbgrader gives
    assert ours.cells[1]["metadata"]["nbgrader"]["grade_id"] == "tests" and ours.cells[1]["id"] == "tests-restored-2"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nbformat.validate(ours)
    old_format = nbformat.from_dict({"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "source": "", "outputs": [], "execution_count": None}]})
    give_ids(old_format)  # a format without cell ids gets none
    assert "id" not in old_format.cells[0]


def _queries(engine_events: list):
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    def count(*args):
        if not args[2].startswith(("PRAGMA", "SELECT name FROM sqlite_master")):  # (opening the gradebook)
            engine_events.append(args[2])

    event.listen(Engine, "before_cursor_execute", count)
    return lambda: event.remove(Engine, "before_cursor_execute", count)


def test_the_gradebook_is_read_once_per_notebook_and_answers_as_it_would_cell_by_cell(tmp_path, new_gradebook):
    """Lesson 3 as released, in a gradebook nbgrader's SaveCells filled from it; a
    student who edited a locked test, deleted another, marked an answer as graded and made up a
    grade id. Ours puts back what nbgrader's OverwriteCells puts back (less the ids and prose
    it adds), asking the gradebook a handful of questions instead of one per cell."""
    from nbgrader.preprocessors import SaveCells

    released = nbformat.read(str(ROOT / "release" / NAME / f"{NAME}.ipynb"), as_version=4)
    resources = {"nbgrader": {"notebook": NAME, "assignment": NAME, "db_url": new_gradebook(tmp_path / "g.db")}}
    with Gradebook(resources["nbgrader"]["db_url"]) as gb:
        gb.add_assignment(NAME)
    SaveCells().preprocess(copy.deepcopy(released), copy.deepcopy(resources))
    student = copy.deepcopy(released)
    tests = [c for c in student.cells if utils.is_grade(c) and not utils.is_solution(c)]
    tests[0].source = "pass  # the student's edit of a locked test"
    student.cells.remove(tests[1])
    answer = next(c for c in student.cells if utils.is_solution(c) and c.cell_type == "code")
    answer.metadata.nbgrader.update(grade=True, points=100)
    made_up = next(c for c in student.cells if c.cell_type == "code" and "nbgrader" not in c.metadata)
    made_up.metadata.nbgrader = {"grade": True, "solution": False, "locked": False, "grade_id": "mine", "points": 50,
                                 "schema_version": 3}
    asked: list = []
    stop = _queries(asked)
    try:
        ours, _ = OverwriteCellsInLanguage(add_missing_cells=True).preprocess(copy.deepcopy(student),
                                                                                copy.deepcopy(resources))
        ours_asked, asked[:] = len(asked), []
        theirs_student = copy.deepcopy(student)
        theirs_student.cells.remove(next(c for c in theirs_student.cells if c.metadata.get("nbgrader", {})
                                         .get("grade_id") == "mine"))  # (it makes nbgrader fail the notebook)
        answer_meta = next(c for c in theirs_student.cells if c.get("id") == answer.get("id")).metadata.nbgrader
        answer_meta.update(grade=False)  # (so does this)
        answer_meta.pop("points")
        theirs, _ = OverwriteCells(add_missing_cells=True).preprocess(theirs_student, copy.deepcopy(resources))
    finally:
        stop()
    assert ours_asked <= 20 and len(asked) > 4 * ours_asked, (ours_asked, len(asked))  # measured: 17 and 82
    graded = {c.metadata["nbgrader"]["grade_id"]: c for c in theirs.cells if "nbgrader" in c.metadata}
    for cell in ours.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in graded and cell.cell_type == "code":
            assert (cell.source, cell.metadata["nbgrader"]) == (graded[grade_id].source,
                                                                graded[grade_id].metadata["nbgrader"]), grade_id
    assert next(c for c in ours.cells if c.get("id") == made_up.get("id")).metadata.get("nbgrader") is None
    assert next(c for c in ours.cells if c.get("id") == answer.get("id")).metadata.nbgrader["grade"] is False
    deleted = tests[1].metadata.nbgrader["grade_id"]
    assert [c.metadata["nbgrader"]["grade_id"] for c in ours.cells if "nbgrader" in c.metadata].count(deleted) == 1
    assert "pass  # the student's edit" not in "".join(c.source for c in ours.cells)


def test_an_answer_left_as_released_in_its_language_is_unanswered(tmp_path, new_gradebook):
    """nbgrader's "No response." (SaveAutoGrades: the answer cell's checksum unchanged) for a cell
    that still holds the release's stub in the notebook's language, whose checksum is not the
    English release's (the English stub is unanswered in any notebook, as nbgrader says); an answer
    the student wrote is an answer."""
    from autograder.instructor.course import stub_in, stubs

    released = "def train(model):\n    " + stubs("en")["code"]["python"].replace("\n", "\n    ")
    answer = new_code_cell(released)
    answer.metadata.nbgrader = {"grade": False, "solution": True, "locked": False, "grade_id": "train_loop",
                                "schema_version": 3}
    answer.metadata.nbgrader["checksum"] = utils.compute_checksum(answer)
    student, resources, config, _ = _course(tmp_path, new_gradebook)
    with Gradebook(resources["nbgrader"]["db_url"]) as gb:
        gb.update_or_create_source_cell("train_loop", NAME, NAME, cell_type="code", locked=False, source=released,
                                        checksum=answer.metadata.nbgrader["checksum"])
        gb.update_or_create_solution_cell("train_loop", NAME, NAME)
    student.cells.append(answer)
    for language, source, unanswered in [("zh", stub_in("zh", released), True), ("sv", stub_in("sv", released), True),
                                         ("en", released, True), ("zh", released, True),
                                         ("zh", "def train(model):\n    return 1", False)]:
        mine = copy.deepcopy(student)
        mine.cells[2].source = source
        ours = _overwritten(mine, resources, config, language).cells[2]
        same = ours.metadata.nbgrader["checksum"] == utils.compute_checksum(ours)
        assert same is unanswered, (language, source)
