"""What every grading worker imports, imported once: the worker pool's fork server imports
this module, and each worker is forked from it with all of it loaded (``pool.Pool(preload=...)``).

Each worker used to import nbgrader, nbconvert, nbclient and the course's passes itself:
1.6 s of CPU per worker, all of it while the judge and the fork server were importing torch
on the same cores, before anyone could be graded.
"""
import gc

from ..fast_imports import skip_iri_grammar

skip_iri_grammar()
# no collections while importing (0.1 s less); then the modules' objects are frozen, so that
# the full collections while grading skip them (and the forked workers share their pages)
gc.disable()
import jinja2  # noqa: E402,F401
import nbclient  # noqa: E402,F401
import nbconvert.exporters.html  # noqa: E402,F401
import sqlalchemy.dialects.sqlite  # noqa: E402,F401
from nbgrader.apps import NbGraderAPI  # noqa: E402,F401
from nbgrader.coursedir import CourseDirectory  # noqa: E402,F401
from nbgrader.plugins import CsvExportPlugin  # noqa: E402,F401

import autograder.instructor.passes.apply_verdicts  # noqa: E402,F401
import autograder.instructor.passes.feedback_exporter  # noqa: E402,F401
import autograder.instructor.passes.judged_execute  # noqa: E402,F401
import autograder.instructor.passes.redraw_questions  # noqa: E402,F401
import autograder.instructor.passes.safe_for_pages  # noqa: E402,F401

gc.freeze()
gc.enable()
