"""nbgrader configuration: the repository root is the course directory.

The gradebook is SQLite in the root unless NBGRADER_DB_URL names another
database (any SQLAlchemy URL, e.g. postgresql://user@host/course).
"""
import os

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = root
c.CourseDirectory.course_id = "autograd-lessons"
c.CourseDirectory.db_url = os.environ.get(
    "NBGRADER_DB_URL", "sqlite:///" + os.path.join(root, "gradebook.db")
)

# Release notebooks keep a plain stub where a solution was.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Training-loop tests run a small model several times; give each cell room.
c.ExecutePreprocessor.timeout = 120
c.Execute.timeout = 120

# Feedback never shows the source of hidden tests: neither the cell's source nor the
# lines an error traceback quotes from it.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "autograder.nbgrader_ext.ConciseTestErrors",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
# HTMLExporter that compiles the feedback templates once per process (same HTML).
c.GenerateFeedback.exporter_class = "autograder.nbgrader_ext.FeedbackExporter"

# A student who deletes a test cell does not delete its points: the cell comes back.
# SafeDeduplicateIds is nbgrader's DeduplicateIds with a fix: a student who duplicated a
# graded cell made nbgrader fail the whole notebook.
c.OverwriteCells.add_missing_cells = True
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "autograder.nbgrader_ext.SafeDeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "nbgrader.preprocessors.OverwriteCells",
    "autograder.nbgrader_ext.FastCheckCellMetadata",
]

# `nbgrader export` writes grades.csv (nbgrader's columns) and grades_by_cell.csv: every
# cell's automatic, manual and final score and the comment given in formgrader.
c.ExportApp.plugin_class = "autograder.instructor.export.CellCsvExportPlugin"
