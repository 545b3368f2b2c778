"""OverwriteCellsKeepingProse: a student's (translated) prose stays; code and tests are put
back exactly as nbgrader's OverwriteCells puts them back."""
from __future__ import annotations

import copy
import warnings

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from nbgrader import utils
from nbgrader.api import Gradebook
from nbgrader.preprocessors import OverwriteCells

from autograder.instructor.preprocessors.overwrite_cells import OverwriteCellsKeepingProse, give_ids


def _locked(cell, grade_id, **extra):
    cell.metadata.nbgrader = {"grade": False, "solution": False, "locked": True, "grade_id": grade_id,
                              "schema_version": 3, **extra}
    cell.metadata.nbgrader["checksum"] = utils.compute_checksum(cell)
    return cell


def _course(tmp_path):
    """A gradebook holding the instructor's (English) cells, and a student's Spanish notebook."""
    intro = _locked(new_markdown_cell("## 1. What `.grad` holds"), "intro")
    test = _locked(new_code_cell("check_train_loop(train)"), "tests", grade=True, points=4)
    db = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(db) as gb:
        gb.add_assignment("a")
        gb.add_notebook("nb", "a")
        for cell in (intro, test):
            gb.update_or_create_source_cell(cell.metadata.nbgrader["grade_id"], "nb", "a", cell_type=cell.cell_type,
                                            locked=True, source=cell.source,
                                            checksum=cell.metadata.nbgrader["checksum"])
        gb.update_or_create_grade_cell("tests", "nb", "a", max_score=4, cell_type="code")
    student = new_notebook(cells=[copy.deepcopy(intro), copy.deepcopy(test)])
    student.cells[0].source = "## 1. Qué contiene `.grad`"
    student.cells[1].source = "pass  # the student's edit of a locked test"
    resources = {"nbgrader": {"notebook": "nb", "assignment": "a", "db_url": db}}
    return student, resources


def test_prose_stays_in_the_students_language_and_tests_come_back(tmp_path):
    student, resources = _course(tmp_path)
    ours, _ = OverwriteCellsKeepingProse().preprocess(copy.deepcopy(student), copy.deepcopy(resources))
    theirs, _ = OverwriteCells().preprocess(copy.deepcopy(student), copy.deepcopy(resources))
    assert ours.cells[0].source == "## 1. Qué contiene `.grad`"
    assert theirs.cells[0].source == "## 1. What `.grad` holds"  # what plain nbgrader would do
    assert ours.cells[1].source == theirs.cells[1].source == "check_train_loop(train)"
    assert ours.cells[1].metadata == theirs.cells[1].metadata


def test_a_deleted_test_comes_back_with_an_id(tmp_path):
    """nbgrader puts a deleted test cell back without a cell id (nbformat then warns on the
    instructor's terminal); ours gets one, unlike any other id of the notebook."""
    answer = new_code_cell("def train(): ...")
    answer.metadata.nbgrader = {"grade": False, "solution": True, "locked": False, "grade_id": "answer",
                                "schema_version": 3}
    test = _locked(new_code_cell("check_train_loop(train)"), "tests", grade=True, points=4)
    db = f"sqlite:///{tmp_path / 'gradebook.db'}"
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
    ours, _ = OverwriteCellsKeepingProse(add_missing_cells=True).preprocess(copy.deepcopy(student),
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
