"""ClearStudentMetadata: of a submission's metadata, only the fields the grader reads stay, each
checked (the table in the module's docstring is this test's list)."""
from __future__ import annotations

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.instructor.passes.clear_student_metadata import ClearStudentMetadata

NBGRADER = {"grade": False, "solution": True, "locked": False, "grade_id": "answer", "schema_version": 3}


def _submitted(language):
    code = new_code_cell("x = 1")
    code.metadata = {"nbgrader": dict(NBGRADER), "autograder": {"verdict": {"ok": False, "mistake": "forged"}},
                     "tags": ["<img src=x onerror=alert(1)>"], "jupyter": {"source_hidden": True}}
    note = new_markdown_cell("![x](attachment:a.svg)")
    note.attachments = {"a.svg": {"image/svg+xml": "<svg onload=alert(1)/>"}}
    note.metadata = {"nbgrader": "not a dict"}
    nb = new_notebook(cells=[code, note])
    nb.cells[1].id = "\" onmouseover=alert(1) x=\""
    nb.metadata = {"autograd_lessons": {"language": language, "extra": "x"},
                   "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                   "language_info": {"name": "<script>", "pygments_lexer": "../../x"},
                   "widgets": {"application/vnd.jupyter.widget-state+json": {"state": {"evil": {}}}}}
    return nb


@pytest.mark.parametrize("language, kept", [("es", "es"), ("zh", "zh"), ("../../../submitted/x/evil", "en"),
                                            ("{0:>99999999}", "en"), (["es"], "en"), (None, "en"), ("EN", "en")])
def test_only_checked_fields_stay(language, kept):
    nb, _ = ClearStudentMetadata().preprocess(_submitted(language), {})
    assert nb.metadata == {"autograd_lessons": {"language": kept}, "language_info": {"name": "python"},
                           "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    assert nb.cells[0].metadata == {"nbgrader": NBGRADER}
    assert nb.cells[1].metadata == {} and "attachments" not in nb.cells[1]
    assert nb.cells[1].id == "cell-1"


def test_a_notebook_without_metadata_is_english():
    nb = new_notebook(cells=[new_code_cell("x = 1")])
    nb, _ = ClearStudentMetadata().preprocess(nb, {})
    assert nb.metadata.autograd_lessons.language == "en" and "kernelspec" not in nb.metadata


def test_duplicate_cell_ids_become_unique():
    nb = new_notebook(cells=[new_code_cell("a"), new_code_cell("b"), new_code_cell("c")])
    for cell in nb.cells:
        cell.id = "same"
    nb, _ = ClearStudentMetadata().preprocess(nb, {})
    assert len({cell.id for cell in nb.cells}) == 3
