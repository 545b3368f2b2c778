"""SafeDeduplicateIds: nbgrader's DeduplicateIds, fixed for duplicated graded cells."""
from __future__ import annotations

from nbgrader import utils
from nbgrader.preprocessors import DeduplicateIds

from ..printable import printable


class SafeDeduplicateIds(DeduplicateIds):
    """nbgrader's DeduplicateIds, fixed: a duplicated cell becomes an ordinary cell.

    nbgrader empties the nbgrader metadata of the second cell with a grade id, which
    CheckCellMetadata then rejects ("Outdated schema version: 0") and OverwriteCells
    (with ``add_missing_cells``) trips over (KeyError 'grade_id'): the whole notebook
    failed and a student who copied a cell lost every point. Removing the metadata
    altogether keeps the copy as plain student code.
    """

    def preprocess_cell(self, cell, resources, cell_index):
        if utils.is_grade(cell) or utils.is_solution(cell) or utils.is_locked(cell):
            grade_id = cell.metadata.nbgrader["grade_id"]
            if grade_id in self.grade_ids:
                self.log.warning("Cell with id '%s' exists multiple times!", printable(grade_id))
                del cell.metadata["nbgrader"]
            else:
                self.grade_ids.add(grade_id)
        return cell, resources
