"""ClearHiddenTestsOfTestCells: nbgrader's ClearHiddenTests, applied to test cells only.

Hidden tests live only in the instructor's test cells. nbgrader's pass reads every cell
and stops the whole feedback with an error when a student's own answer contains an
unmatched ``### BEGIN HIDDEN TESTS`` (or a non-test cell contains a region): one comment
line cost the student their feedback. Test cells are cleared exactly as nbgrader clears
them; a student's cells are the student's text and are left alone.
"""
from __future__ import annotations

from nbgrader import utils
from nbgrader.preprocessors import ClearHiddenTests


class ClearHiddenTestsOfTestCells(ClearHiddenTests):
    def preprocess_cell(self, cell, resources, cell_index):
        if not utils.is_grade(cell):
            return cell, resources
        return super().preprocess_cell(cell, resources, cell_index)
