"""ApplyVerdicts: a test cell keeps its points only if the judge recorded a pass for it.

Runs after JudgedExecute and before nbgrader's SaveAutoGrades: a judged test cell whose
verdict is a failure (or that has no verdict: its checks never reached the judge) and
shows no error gets one, with the judge's reason in the notebook's language, so
nbgrader's own scoring gives it 0 and the feedback says why. Each judged cell keeps its
verdict in its metadata (``autograder.verdict``), where the class report reads the
mistake it names.
"""
from __future__ import annotations

from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor

from ... import messages
from ...judges.verdict import Verdict
from .judged_execute import notebook_language


class ApplyVerdicts(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        verdicts = resources.get("autograder", {}).get("verdicts")
        if verdicts is None:  # not executed by JudgedExecute: nothing was judged
            return nb, resources
        language = notebook_language(nb)
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if not utils.is_grade(cell) or grade_id not in verdicts:
                continue
            verdict = Verdict.from_data(verdicts[grade_id])
            cell.metadata["autograder"] = {"verdict": verdict.to_data()}
            if not verdict.ok and not any(o.output_type == "error" for o in cell.get("outputs", [])):
                text = messages.render(verdict.key, verdict.fields, language)
                cell.outputs.append(NotebookNode(output_type="error", ename="GradingCheck", evalue=text,
                                                 traceback=[f"GradingCheck: {text}"]))
        return nb, resources
