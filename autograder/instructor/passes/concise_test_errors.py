"""ConciseTestErrors: a failed test cell's traceback becomes its last line."""
from __future__ import annotations

from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor


class ConciseTestErrors(NbGraderPreprocessor):
    """Reduce the traceback of a failed test cell to its last line, ``AssertionError: <diagnosis>``.

    An IPython traceback quotes the lines around the failing call, hidden tests included
    (nbgrader's ClearHiddenTests clears the cell's source, not its outputs). The
    assertion message is the feedback; the quoted code is noise at best and a leak at worst.
    """

    def preprocess_cell(self, cell, resources, index):
        if utils.is_grade(cell):
            for output in cell.get("outputs", []):
                if output.output_type == "error":
                    output.traceback = [f"{output.ename}: {output.evalue}"]
        return cell, resources
