"""LimitSourceSize: a cell keeps at most ``max_cell`` characters of source and a notebook at most
``max_total``, with a line in the student's language (a comment in a code cell) saying how much
was cut; honest cells are left alone."""
from __future__ import annotations

from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.instructor.passes.limit_source_size import LimitSourceSize


def _run(cells, language="en", max_cell=100, max_total=250, max_cells=1000):
    nb = new_notebook(cells=cells)
    nb.metadata["autograd_lessons"] = {"language": language}
    nb, _ = LimitSourceSize(max_cell=max_cell, max_total=max_total, max_cells=max_cells).preprocess(nb, {})
    return [c.source for c in nb.cells]


def test_a_huge_code_cell_is_cut_with_a_comment_saying_so():
    (source,) = _run([new_code_cell("zz = (" + "a," * 500 + ")")])
    kept, note = source.split("\n")
    assert kept == ("zz = (" + "a," * 500)[:100]
    assert note.startswith("# [Source cut here: 907 more characters.") and "first 100 characters" in note


def test_a_huge_markdown_cell_is_cut_without_a_comment_sign():
    (source,) = _run([new_markdown_cell("#\n" * 200)])
    assert source.endswith("\n[Source cut here: 300 more characters. Grading keeps the first 100 characters of a "
                           "cell, and 250 of a notebook.]")


def test_the_notebook_budget_cuts_the_cells_after_it():
    sources = _run([new_code_cell("x" * 90) for _ in range(4)])
    assert [s.split("\n")[0] for s in sources] == ["x" * 90, "x" * 90, "x" * 70, ""]
    assert "20 more characters" in sources[2] and "90 more characters" in sources[3]


def test_the_note_is_in_the_notebooks_language():
    (source,) = _run([new_code_cell("y" * 500)], language="fr")
    assert "Source coupée ici : 400 caractères de plus" in source


def test_honest_cells_are_left_alone():
    cells = [new_markdown_cell("## 1. What `.grad` holds\n\nText."), new_code_cell("loss.backward()\nw.grad")]
    assert _run(cells) == ["## 1. What `.grad` holds\n\nText.", "loss.backward()\nw.grad"]


def test_past_the_cell_budget_the_later_cells_go():
    """Whatever their metadata: a graded or locked cell of the instructor's that is cut comes back
    from the gradebook (OverwriteCells adds missing cells), an answer cell is the student's loss."""
    def answer(i):
        return new_markdown_cell("", metadata={"nbgrader": {"solution": True, "grade": False, "grade_id": f"z{i}"}})
    locked = new_code_cell("import torch", metadata={"nbgrader": {"locked": True, "grade_id": "setup"}})
    sources = _run([locked] + [answer(i) for i in range(10)], max_cells=4)
    assert sources == ["import torch", "", "", "", "[7 cells of your own were cut here: grading keeps 4 cells of a "
                       "notebook.]"]
