"""OverwriteCellsKeepingProse: nbgrader's OverwriteCells, except for the lesson's prose.

nbgrader puts back the instructor's source of every locked cell a student changed. The
lessons' markdown cells are locked, so a student who worked in Spanish would get their
notebook, and their feedback, back with the English text of an English course directory.
Prose carries no points: this pass keeps each markdown cell's text as the student had it
(the language they read), and restores everything else exactly as nbgrader does: every
code cell, every test, every grade id and point value.
"""
from __future__ import annotations

from nbgrader import utils
from nbgrader.preprocessors import OverwriteCells


class OverwriteCellsKeepingProse(OverwriteCells):
    def preprocess_cell(self, cell, resources, cell_index):
        prose = cell.cell_type == "markdown" and not utils.is_grade(cell) and not utils.is_solution(cell)
        text = cell.source
        cell, resources = super().preprocess_cell(cell, resources, cell_index)
        if prose and cell.cell_type == "markdown":
            cell.source = text
        return cell, resources
