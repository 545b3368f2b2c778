"""FastCheckCellMetadata stands in for nbgrader's CheckCellMetadata: the same verdicts and
the same errors, on the lessons and on every kind of broken metadata."""
from __future__ import annotations

import copy

import nbformat
import pytest
from helpers import ROOT
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from nbgrader.nbgraderformat import MetadataValidator
from nbgrader.preprocessors import CheckCellMetadata

from autograder.instructor.passes.fast_check_cell_metadata import (
    FastCheckCellMetadata,
    _MetadataValidator,
)

LESSONS = sorted(p for p in (ROOT / "source").glob("*/*.ipynb"))


def graded(source="assert True", **meta):
    cell = new_code_cell(source)
    cell.metadata.nbgrader = {"grade": True, "solution": False, "locked": True, "points": 1,
                              "grade_id": "tests", "schema_version": 3, **meta}
    return cell


def _without(key):
    cell = graded()
    del cell.metadata.nbgrader[key]
    return cell


def _markdown_grade():
    cell = new_markdown_cell("my answer")
    cell.metadata.nbgrader = {"grade": True, "solution": False, "locked": False, "points": 1,
                              "grade_id": "essay", "schema_version": 3}
    return cell


BROKEN = {
    "points are not a number": [graded(points="lots")],
    "no grade id": [_without("grade_id")],
    "empty grade id": [graded(grade_id="")],
    "no points": [_without("points")],
    "duplicate grade id": [graded(), graded()],
    "schema too old": [graded(schema_version=2)],
    "schema too new": [graded(schema_version=4)],
    "unknown key": [graded(colour="red")],
    "markdown grade cell that is not a solution": [_markdown_grade()],
}


def verdict(check, nb):
    try:
        check(copy.deepcopy(nb))
    except Exception as error:  # noqa: BLE001  the error itself is what is compared
        return type(error).__name__, str(error).splitlines()[0]
    return "ok", ""


def ours(nb):
    FastCheckCellMetadata().preprocess(nb, {})


def nbgraders(nb):
    CheckCellMetadata().preprocess(nb, {})


def our_reason(nb):
    _MetadataValidator().validate_nb(nb)


def nbgraders_reason(nb):
    MetadataValidator().validate_nb(nb)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.parent.name)
def test_metadata_check_accepts_the_lessons(path):
    nb = nbformat.read(path, as_version=4)
    assert verdict(ours, nb) == verdict(nbgraders, nb) == ("ok", "")


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_metadata_check_rejects_what_nbgrader_rejects_for_the_same_reason(name):
    nb = new_notebook(cells=BROKEN[name])
    assert verdict(ours, nb) == verdict(nbgraders, nb) != ("ok", "")
    assert verdict(our_reason, nb) == verdict(nbgraders_reason, nb)
