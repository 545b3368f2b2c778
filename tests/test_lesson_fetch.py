"""A lesson link on the course's JupyterHub (lessons/lesson_fetch.py) without a hub: which paths
name a lesson, a fetched copy's prose put in the link's language (answers and code as released),
and a copy the student has kept as it is. test_hub_lti.py runs it in a student's server."""
from __future__ import annotations

import asyncio
import shutil

import nbformat
import pytest
from helpers import ROOT

from lessons import lesson_fetch

NAME = "03_zeroing_grad"
RELEASE = ROOT / "release" / NAME / f"{NAME}.ipynb"


@pytest.mark.parametrize("path, lesson", [
    (f"{NAME}/{NAME}.ipynb", NAME), ("01_requires_grad/01_requires_grad.ipynb", "01_requires_grad"),
    (f"{NAME}/other.ipynb", None), (f"../{NAME}/{NAME}.ipynb", None), (f"{NAME}", None), ("", None),
    (f"{NAME}/{NAME}.ipynb/x", None), (f"a/../{NAME}/{NAME}.ipynb", None),
])
def test_only_an_assignments_own_notebook_is_a_lesson(path, lesson):
    assert lesson_fetch.lesson_of(path) == lesson


@pytest.mark.parametrize("lang", ["fr", "zh"])
def test_a_fetched_copy_gets_the_courses_prose_and_keeps_the_release(tmp_path, lang):
    path = tmp_path / f"{NAME}.ipynb"
    shutil.copy(RELEASE, path)
    released = nbformat.read(str(RELEASE), as_version=4)
    prose = lesson_fetch.prose(lang, NAME)
    done = lesson_fetch.put_in_language(path, NAME, lang)
    mine = nbformat.read(str(path), as_version=4)
    assert mine.metadata["autograd_lessons"] == {"language": lang}
    assert done == sum(c.cell_type == "markdown" and c.id in prose for c in released.cells) > 40
    for ours, theirs in zip(mine.cells, released.cells, strict=True):
        assert ours.id == theirs.id and ours.metadata == theirs.metadata
        if ours.cell_type == "markdown" and ours.id in prose:
            assert ours.source == prose[ours.id].strip("\n") != theirs.source
        else:
            assert ours.source == theirs.source


def test_english_or_a_lesson_the_course_does_not_translate_is_left_as_released(tmp_path):
    path = tmp_path / "mine.ipynb"
    shutil.copy(RELEASE, path)
    before = path.read_bytes()
    assert lesson_fetch.put_in_language(path, NAME, "en") == 0
    assert lesson_fetch.put_in_language(path, "05_my_own_lesson", "es") == 0
    assert path.read_bytes() == before


def test_a_copy_the_student_has_is_opened_as_it_is(tmp_path):
    """Their work, in the language they chose: never fetched again nor rewritten."""
    folder = tmp_path / NAME
    folder.mkdir()
    (folder / f"{NAME}.ipynb").write_text("my own work")
    assert asyncio.run(lesson_fetch.open_lesson(tmp_path, f"{NAME}/{NAME}.ipynb", "es"))
    assert (folder / f"{NAME}.ipynb").read_text() == "my own work"
    # a path that names no lesson is the server's to open (or not), never fetched
    assert asyncio.run(lesson_fetch.open_lesson(tmp_path, "notes/todo.ipynb", "es"))
