"""RedrawQuestions: what a locked cell shows on the pages comes from the grader, never from the kernel.

A generated Quick Check's question cell (``quiz.question("l3_q2")``, a locked cell) shows the
student's own variant of the question, and the student's answer is judged against that
variant. But the cell's output is whatever the student's kernel displayed when it ran: a
kernel can show another question (the published one, a classmate's, one it made up) above
the answer, and formgrader and the feedback page would show the answer as right or wrong for
the wrong question. So, after execution, the outputs of every locked code cell that is not a
test cell are the grader's own:

* a **question cell** (its source, the instructor's, put back by OverwriteCells, is one call
  ``quiz.question("<question>")`` of a generated question) shows the question drawn again
  here, exactly as the judge draws it: ``variants.seed(course secret, assignment, question,
  nbgrader's student id)`` (the published variant without a secret, and for the grader's own
  run of the instructor's notebook), shown as the kernel shows it (``wire.questions``), in
  the notebook's language. For an honest kernel it is the same output as before;
* **any other locked code cell** (the setup cell: imports, no output when it runs honestly)
  shows nothing: what a kernel prints there would read as the course's own words.

Test cells (locked, graded) keep what the kernel printed: it is the account of the student's
own code running (what a check observed, the student's own exception), and their points and
the verdict's message are the judge's (ApplyVerdicts). A student's own cells are theirs.

Runs after execution and before SafeForPages, on the autograded notebook (so formgrader, the
feedback page and ``autograder grade``'s reports see the grader's drawing) and again on the
feedback, for notebooks graded before it existed.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor

from ... import messages
from ...judges import variants
from ...wire.questions import question_data
from .. import course_secret

QUESTION_CELL = re.compile(r"""quiz\.question\(\s*(["'])(\w+)\1\s*\)""")


def question_of(cell) -> str | None:
    """The generated question a locked code cell shows, if it is a question cell."""
    match = QUESTION_CELL.fullmatch(cell.source.strip()) if isinstance(cell.get("source"), str) else None
    return match.group(2) if match and variants.has_variants(match.group(2)) else None


def _locked_code(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and isinstance(meta, dict) and meta.get("locked") is True \
        and not utils.is_grade(cell) and not utils.is_solution(cell)


class RedrawQuestions(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        nbgrader = resources.get("nbgrader", {})
        student = None if nbgrader.get("self_check") else (nbgrader.get("student") or None)
        assignment = nbgrader.get("assignment", "")
        root = Path(self.config.CourseDirectory.get("root") or os.getcwd())
        secret = course_secret.read(root)
        language = messages.notebook_language(nb)
        for cell in nb.cells:
            if not _locked_code(cell):
                continue
            question = question_of(cell)
            if question is None:
                cell.outputs = []
                continue
            drawn = variants.variant(question, variants.seed(secret, assignment, question, student))
            cell.outputs = [NotebookNode(output_type="display_data", metadata=NotebookNode(),
                                         data=NotebookNode(question_data(question, drawn.shown(), language)))]
        return nb, resources
