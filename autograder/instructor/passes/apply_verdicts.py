"""ApplyVerdicts: a judged test cell's points are the judge's verdict, whatever the cell shows.

Runs after JudgedExecute and before nbgrader's SaveAutoGrades, whose ``determine_grade``
reads a test cell's outputs in order and stops at the first error, stderr text or
``execute_result``; a result it can read as a number is partial credit, and one it cannot
read is full credit. An execute result is whatever the cell's last expression showed,
and a student's hook (``sys.displayhook``, an input transformer that appends an
expression) controls that. So in every judged test cell:

* each ``execute_result`` becomes a ``display_data`` with the same content: it still
  shows, but nbgrader never reads it as a score;
* a cell whose verdict is a failure (or that has no verdict: its checks never reached
  the judge) gets an error with the judge's reason in the notebook's language, unless it
  shows one already, so nbgrader gives it 0 and the feedback says why: the reason alone, as a
  failed check shows its message (the error's name, ``GradingCheck``, is for nbgrader and
  the instructor; no class name in front of the student's feedback).

Each judged cell keeps its verdict in its metadata (``autograder.verdict``), where the
class report reads the mistake it names. A test cell that calls no check is nbgrader's
alone (and trusts the kernel); the grader's self-check names such cells.
"""
from __future__ import annotations

from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor

from ... import messages
from ...wire.verdict import Verdict


def shown_not_scored(output: NotebookNode) -> NotebookNode:
    """An ``execute_result`` as a ``display_data`` (nbgrader scores only the former)."""
    if output.get("output_type") != "execute_result":
        return output
    return NotebookNode(output_type="display_data", data=output.get("data", {}),
                        metadata=output.get("metadata", {}))


class ApplyVerdicts(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        verdicts = resources.get("autograder", {}).get("verdicts")
        if verdicts is None:  # not executed by JudgedExecute: nothing was judged
            return nb, resources
        language = messages.notebook_language(nb)
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if not utils.is_grade(cell) or grade_id not in verdicts:
                continue
            verdict = Verdict.from_data(verdicts[grade_id])
            cell.metadata["autograder"] = {"verdict": verdict.to_data()}
            cell.outputs = [shown_not_scored(o) for o in cell.get("outputs", [])]
            if not verdict.ok and not any(o.output_type == "error" for o in cell.outputs):
                text = messages.render(verdict.key, verdict.fields, language)
                cell.outputs.append(NotebookNode(output_type="error", ename="GradingCheck", evalue=text,
                                                 traceback=[text]))
        return nb, resources
