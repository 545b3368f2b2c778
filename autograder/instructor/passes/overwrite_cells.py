"""OverwriteCellsInLanguage: nbgrader's OverwriteCells, with the lesson's prose in the
notebook's language, and trusting the gradebook, not the notebook, about what each cell is.

* nbgrader puts back the instructor's source of every locked cell a student changed. The
  lessons' markdown cells are locked, so a student who worked in Spanish would get their
  notebook, and their feedback, back with the English text of an English course directory.
  Here every locked markdown cell comes back as the instructor wrote it, in the notebook's
  language (the course's translation of that cell, where there is one: ``course.prose_of``),
  never as the student left it: an edited locked cell once carried a script into the
  instructor's formgrader.
* What a cell is (a test cell and its points, an answer cell, locked or not) comes from the
  gradebook. nbgrader trusts the notebook's metadata for some of it: a student who marked
  an answer cell as graded made nbgrader fail the whole notebook (it looks up a grade cell
  that does not exist), and a cell with a grade id of the student's own became a test cell
  without an id, which the metadata check then rejected. Here an unknown grade id makes the
  cell a plain cell, and a known cell gets its kind from the gradebook.

* An answer cell left as released, with nbgrader's stub in the notebook's language
  (``course.stub_in``: "# 在这里写你的代码"), is unanswered, as the English stub is: nbgrader
  compares the cell with the checksum of the English release, and without this its
  "No response." comment was never given to a student of another language.

Everything else is nbgrader's: every code cell, every test, every grade id and point value.

A test cell the student deleted comes back (``add_missing_cells``) with a cell id of its
own: nbgrader makes it without one, and nbformat then warned on the instructor's terminal
("MissingIDFieldWarning: Cell is missing an id field") for every such notebook.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.preprocessors import OverwriteCells

from ... import messages
from .. import course
from ..printable import printable


def give_ids(nb) -> None:
    """An id for every cell without one (a notebook format that has cell ids: 4.5 and later),
    made from its grade id and unlike every other id of the notebook."""
    if (nb.get("nbformat"), nb.get("nbformat_minor", 0)) < (4, 5):
        return
    used = {cell.get("id") for cell in nb.cells}
    for cell in nb.cells:
        if cell.get("id"):
            continue
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") or "cell"
        base = re.sub(r"[^A-Za-z0-9_-]", "-", str(grade_id))[:50] + "-restored"
        candidate, n = base, 1
        while candidate in used:
            n += 1
            candidate = f"{base}-{n}"
        cell["id"] = candidate
        used.add(candidate)


class _NotebookCells:
    """The gradebook, answering what its cells are for one notebook from what it read once.

    OverwriteCells asks the gradebook about every graded cell, four or five queries each
    (what it is, its grade, whether it is an answer): 330 queries for a lesson-3 notebook,
    half of what autograding spent outside the kernel. Here the notebook's cells are read
    in one go, and each such question is answered from them: the same objects, the same
    ``MissingEntry`` for a cell the gradebook does not know. Every other call (and any
    question about another notebook) goes to the gradebook itself."""

    def __init__(self, gradebook, notebook: str, assignment: str):
        self._gradebook, self._where = gradebook, (notebook, assignment)
        record = gradebook.find_notebook(notebook, assignment)
        self._source = {cell.name: cell for cell in record.source_cells}
        self._grade = {cell.name: cell for cell in record.grade_cells}
        self._solution = {cell.name: cell for cell in record.solution_cells}
        self._graded = {**{cell.name: cell for cell in record.task_cells}, **self._grade}

    def __getattr__(self, name):
        return getattr(self._gradebook, name)

    def _find(self, cells: dict, kind: str, name: str, notebook: str, assignment: str):
        if (notebook, assignment) != self._where:
            return getattr(self._gradebook, f"find_{kind}_cell")(name, notebook, assignment)
        if name not in cells:
            raise MissingEntry(f"No such {kind} cell: {assignment}/{notebook}/{name}")
        return cells[name]

    def find_source_cell(self, name, notebook, assignment):
        return self._find(self._source, "source", name, notebook, assignment)

    def find_grade_cell(self, name, notebook, assignment):
        return self._find(self._grade, "grade", name, notebook, assignment)

    def find_solution_cell(self, name, notebook, assignment):
        return self._find(self._solution, "solution", name, notebook, assignment)

    def find_graded_cell(self, name, notebook, assignment):
        return self._find(self._graded, "graded", name, notebook, assignment)


class OverwriteCellsInLanguage(OverwriteCells):
    def preprocess(self, nb, resources):
        self._language = messages.notebook_language(nb)
        self._prose = _prose(resources, self._language, self.config)
        self._read_cells = False
        nb, resources = super().preprocess(nb, resources)
        give_ids(nb)
        return nb, resources

    def _notebook_cells(self) -> None:
        """Once per notebook, inside nbgrader's ``with gradebook``: its cells read in one go."""
        if not self._read_cells:
            self._read_cells = True
            try:
                self.gradebook = _NotebookCells(self.gradebook, self.notebook_id, self.assignment_id)
            except MissingEntry:  # a notebook the gradebook does not know: nbgrader says so, as it would
                pass

    def _kind_from_gradebook(self, cell) -> bool:
        """Set the cell's grade/solution flags and points as the gradebook has them; False
        when the gradebook does not know the cell's grade id (it is then a plain cell)."""
        grade_id = cell.metadata.nbgrader.get("grade_id")
        try:
            self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
        except MissingEntry:
            return False
        meta = cell.metadata.nbgrader
        try:
            grade_cell = self.gradebook.find_grade_cell(grade_id, self.notebook_id, self.assignment_id)
            meta["grade"], meta["points"] = True, grade_cell.max_score
        except MissingEntry:
            meta["grade"] = False
            meta.pop("points", None)
        try:
            self.gradebook.find_solution_cell(grade_id, self.notebook_id, self.assignment_id)
            meta["solution"] = True
        except MissingEntry:
            meta["solution"] = False
        return True

    def preprocess_cell(self, cell, resources, cell_index):
        self._notebook_cells()
        if "nbgrader" in cell.metadata and cell.metadata.nbgrader.get("grade_id") is not None \
                and not utils.is_task(cell):
            if not self._kind_from_gradebook(cell):
                self.log.warning("Cell '%s' is not in the gradebook: graded as a plain cell",
                                 printable(cell.metadata.nbgrader.get("grade_id")))  # (the student's to choose)
                del cell.metadata["nbgrader"]
                return cell, resources
        cell, resources = super().preprocess_cell(cell, resources, cell_index)
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if self._language != "en" and utils.is_solution(cell) and not utils.is_locked(cell):
            self._unanswered_in_language(cell, grade_id)
        if cell.cell_type == "markdown" and utils.is_locked(cell) and not utils.is_solution(cell) \
                and grade_id in self._prose:
            cell.source = self._prose[grade_id]
        return cell, resources


    def _unanswered_in_language(self, cell, grade_id) -> None:
        """An answer cell that is the release's, stub in the notebook's language, gets that
        source's checksum (nbgrader's checksum is the English release's)."""
        try:
            released = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id).source
        except MissingEntry:
            return
        if released is not None and cell.source == course.stub_in(self._language, released):
            cell.metadata.nbgrader["checksum"] = utils.compute_checksum(cell)


def _prose(resources: dict, language: str, config) -> dict:
    """{grade id: text} of the translated markdown cells of the notebook being graded ({} in
    English, or where the course has no translation of it)."""
    if language == "en":
        return {}
    info = resources.get("nbgrader", {})
    root = Path(config.CourseDirectory.get("root") or os.getcwd())
    source = root / config.CourseDirectory.get("source_directory", "source") / str(info.get("assignment")) \
        / f"{info.get('notebook')}.ipynb"
    return course.prose_of(source, language, str(info.get("assignment")))
