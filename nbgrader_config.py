"""nbgrader configuration: the repository root is the course directory.

The gradebook is SQLite in the root unless NBGRADER_DB_URL names another
database (any SQLAlchemy URL, e.g. postgresql://user@host/course).

Autograding (plain ``nbgrader autograde`` and ``autograder grade`` alike) runs every
kernel in the operating system's sandbox and lets a separate judge process decide each
test cell's points (see README, "How grading stays honest").
"""
import os
from importlib.util import find_spec

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

# A new gradebook's schema version is read in this process, not by a 3.5 s subprocess
# (autograder.instructor.fast_imports).
from autograder.instructor.fast_imports import gradebook_head_in_process  # noqa: E402

gradebook_head_in_process()

root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = root
c.CourseDirectory.course_id = "autograd-lessons"
c.CourseDirectory.db_url = os.environ.get(
    "NBGRADER_DB_URL", "sqlite:///" + os.path.join(root, "gradebook.db")
)

# Release notebooks keep a plain stub where a solution was (in English here: each language's release
# gets its own words, autograder.instructor.course.stubs).
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Training-loop tests run a small model several times; give each cell room.
c.ExecutePreprocessor.timeout = 120
c.Execute.timeout = 120
c.JudgedExecute.timeout = 120

# nbconvert checks each notebook against the notebook format once, after the last pass, not
# after every pass (23 checks per lesson-3 submission, a tenth of autograding's time outside
# the kernel). A pass that breaks the format still fails that notebook.
c.Exporter.optimistic_validation = True

# Feedback never shows the source of hidden tests: neither the cell's source nor the
# lines an error traceback quotes from it.
P = "autograder.instructor.passes"
# Nothing a student wrote is live in the feedback page (SafeForPages, as on the autograded notebook),
# and a locked cell shows what the grader draws, not what the kernel printed (RedrawQuestions).
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    f"{P}.concise_test_errors.ConciseTestErrors",
    f"{P}.feedback_in_language.FeedbackInLanguage",
    f"{P}.clear_hidden_tests.ClearHiddenTestsOfTestCells",
    f"{P}.redraw_questions.RedrawQuestions",
    f"{P}.safe_for_pages.SafeForPages",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
# HTMLExporter that compiles the feedback templates once per process (same HTML).
c.GenerateFeedback.exporter_class = "autograder.instructor.passes.feedback_exporter.FeedbackExporter"
# nbgrader's feedback page with its own words ("Score", "Test cell", "Student's answer", ...) in
# the notebook's language, from the [feedback] section of autograder/locale/<lang>.toml (the
# exporter finds the template's folder, in the autograder package).
c.FeedbackExporter.template_name = "feedback_in_language"
# Formgrader's page of a submission is nbgrader's, with nothing of the submission typeset by MathJax
# (autograder/instructor/passes/templates/formgrade_inert, which extends nbgrader's formgrade).
# Formgrader's exporter is a plain HTMLExporter, so this names HTMLExporter's template: the feedback
# page has its own (FeedbackExporter's, above).
_formgrader = os.path.join(os.path.dirname(find_spec("nbgrader").origin), "server_extensions", "formgrader", "templates")
c.HTMLExporter.template_name = "formgrade_inert"
c.HTMLExporter.extra_template_basedirs = [
    _formgrader, os.path.join(find_spec("autograder").submodule_search_locations[0], "instructor", "passes", "templates")]
c.HTMLExporter.extra_template_paths = [_formgrader]
# Feedback folders hold the feedback pages only (nbgrader would copy every other file).
c.GenerateFeedback.post_convert_hook = "autograder.instructor.passes.hooks.feedback_only"

# Everything in a submission is the student's to write: metadata keeps only what the grader
# reads, checked (ClearStudentMetadata). A student who deletes a test cell does not delete its
# points: the cell comes back. SafeDeduplicateIds is nbgrader's DeduplicateIds with a fix: a
# student who duplicated a graded cell made nbgrader fail the whole notebook. Locked cells,
# markdown included, come back as the instructor wrote them, in the notebook's language. No cell
# keeps more than 20 000 characters of source, no notebook 200 000 or 1 000 cells (LimitSourceSize):
# rendering a huge cell, or a myriad of empty ones, took gigabytes of the grading process's memory.
c.OverwriteCells.add_missing_cells = True
c.Autograde.sanitize_preprocessors = [
    f"{P}.limit_source_size.LimitSourceSize",
    "nbgrader.preprocessors.ClearOutput",
    f"{P}.clear_student_metadata.ClearStudentMetadata",
    f"{P}.safe_deduplicate_ids.SafeDeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    f"{P}.overwrite_cells.OverwriteCellsInLanguage",
    f"{P}.fast_check_cell_metadata.FastCheckCellMetadata",
]
# Kernels in the sandbox, points from the judge: a judged test cell's points are the judge's
# verdict, whatever it displays (ApplyVerdicts runs before nbgrader saves the scores), a locked
# cell's output is the grader's own (a question cell: the student's variant, drawn again outside the
# kernel; RedrawQuestions), and nothing a student wrote is live in formgrader's page of the
# autograded notebook (SafeForPages).
c.Autograde.autograde_preprocessors = [
    f"{P}.judged_execute.JudgedExecute",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    f"{P}.limit_output_size.LimitOutputSize",
    f"{P}.apply_verdicts.ApplyVerdicts",
    f"{P}.redraw_questions.RedrawQuestions",
    f"{P}.safe_for_pages.SafeForPages",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    f"{P}.fast_check_cell_metadata.FastCheckCellMetadata",
]
# Links and special files in a submitted folder are set aside, never followed.
c.Autograde.pre_convert_hook = "autograder.instructor.passes.hooks.quarantine_unsafe_files"
# On a machine that cannot sandbox kernels, an instructor may turn the sandbox off here
# (students' code can then read and change what this user can):
# c.JudgedExecute.sandbox = False

# `nbgrader export` writes grades.csv (nbgrader's columns) and grades_by_cell.csv: every
# cell's automatic, manual and final score and the comment given in formgrader.
c.ExportApp.plugin_class = "autograder.instructor.passes.export.CellCsvExportPlugin"

# `nbgrader collect` (and formgrader's Collect) take a submission from the exchange only from the
# student who owns it, at the time its files were really written, copying only its regular files:
# every user can write into the exchange's inbound folder (autograder/instructor/exchange/collect.py).
c.ExchangeFactory.collect = "autograder.instructor.exchange.collect.CheckedCollect"
# `nbgrader release_feedback` (and formgrader's button) release each student's page on its own: a
# submission whose records were deleted or tampered with costs that student their page, not the
# class the rest of the release (autograder/instructor/exchange/release_feedback.py).
c.ExchangeFactory.release_feedback = "autograder.instructor.exchange.release_feedback.CheckedReleaseFeedback"
