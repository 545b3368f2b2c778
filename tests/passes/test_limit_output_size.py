"""LimitOutputSize: an output keeps at most ``max_chars`` of each text, with a line in the
student's language saying how much was cut; outputs under the limit are left alone."""
from __future__ import annotations

from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.instructor.passes.limit_output_size import LimitOutputSize


def _run(outputs, language="en", max_chars=1000):
    cell = new_code_cell("print(...)")
    cell.outputs = outputs
    nb = new_notebook(cells=[cell])
    nb.metadata["autograd_lessons"] = {"language": language}
    nb, _ = LimitOutputSize(max_chars=max_chars).preprocess(nb, {})
    return nb.cells[0].outputs


def test_one_huge_line_is_cut_and_says_so():
    (out,) = _run([new_output("stream", name="stdout", text="x" * 5000 + "\n")])
    assert out.text.startswith("x" * 1000 + "\n[Output cut here: 4001 more characters.")
    assert "first 1000 characters" in out.text and len(out.text) < 1200


def test_the_note_is_in_the_notebooks_language():
    (out,) = _run([new_output("stream", name="stdout", text="x" * 5000)], language="es")
    assert "Salida cortada aquí: 4000 caracteres más" in out.text


def test_small_outputs_are_left_alone():
    outputs = [new_output("stream", name="stdout", text="loss 0.25\n" * 50),
               new_output("execute_result", data={"text/plain": "tensor([1., 2.])"}, execution_count=1),
               new_output("error", ename="ValueError", evalue="bad", traceback=["line 1", "ValueError: bad"])]
    before = [NotebookNode(dict(o)) for o in outputs]
    assert _run(outputs) == before


def test_a_huge_result_keeps_its_text_cut_and_loses_a_huge_image():
    (out,) = _run([new_output("display_data", data={"text/plain": "y" * 3000, "image/png": "iVBOR" * 1000})])
    assert out.data["text/plain"].startswith("y" * 1000 + "\n[Output cut here: 2000 more")
    assert out.data["image/png"].startswith("[Output cut here: 5000 more")


def test_a_huge_traceback_is_cut_as_a_whole():
    lines = [f"frame {i} " + "z" * 300 for i in range(20)]
    (out,) = _run([new_output("error", ename="RecursionError", evalue="e" * 2000, traceback=lines)])
    assert sum(len(line) for line in out.traceback) < 1000 + 200
    assert out.traceback[0] == lines[0] and "[Output cut here:" in out.traceback[-1]
    assert out.evalue.startswith("e" * 1000) and "1000 more" in out.evalue


def test_an_errors_name_is_cut_too():
    """An error's name is a class name the student's code makes: it can be as long as any text."""
    (out,) = _run([new_output("error", ename="E" * 5000, evalue="v", traceback=["E: v"])])
    assert out.ename.startswith("E" * 1000) and "4000 more" in out.ename and len(out.ename) < 1200
