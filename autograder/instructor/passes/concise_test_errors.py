"""ConciseTestErrors: a failed test cell's traceback becomes its last line."""
from __future__ import annotations

from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor

# The exception a check raises (``autograder.kernel.checks.CheckFailed``) and the error the grader
# gives a cell the judge failed (``apply_verdicts.ApplyVerdicts``): their message is the feedback,
# in the student's language, and is shown alone, as the student's own kernel showed it.
CHECK_FAILED = ("CheckFailed", "GradingCheck")


class ConciseTestErrors(NbGraderPreprocessor):
    """Reduce the traceback of a failed test cell to its last line: the check's message alone
    (``CheckFailed``, ``GradingCheck``), or ``<name>: <value>`` for any other error.

    An IPython traceback quotes the lines around the failing call, hidden tests included
    (nbgrader's ClearHiddenTests clears the cell's source, not its outputs). The
    assertion message is the feedback; the quoted code is noise at best and a leak at worst.
    """

    def preprocess_cell(self, cell, resources, index):
        if utils.is_grade(cell):
            for output in cell.get("outputs", []):
                if output.output_type == "error":
                    name, value = output.get("ename"), output.get("evalue")
                    output.traceback = [f"{value}" if name in CHECK_FAILED else f"{name}: {value}"]
        return cell, resources
