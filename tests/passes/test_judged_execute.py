"""JudgedExecute: the kernel is sandboxed, the judge is told when each test cell runs, the
answers a test cell reads are committed before its code reaches the kernel, and a kernel
that dies costs only its cell."""
from __future__ import annotations

import nbformat
import pytest
from helpers import ROOT, grade_id, read
from traitlets.config import Config

from autograder.instructor.passes.judged_execute import JudgedExecute
from autograder.wire.verdict import Verdict

pytestmark = pytest.mark.slow
NAME = "03_zeroing_grad"


def _lesson(answers: dict, extra_before_tests: str = ""):
    """Lesson 3's setup, Quick Check answers and their four test cells, as nbgrader runs them."""
    source = read(ROOT / "source" / NAME / f"{NAME}.ipynb")
    cells = [c for c in source.cells if c.cell_type == "code" and
             (grade_id(c) in ("setup", "quick_check_answers") or (grade_id(c) or "").startswith("quiz_q"))]
    for cell in cells:
        if grade_id(cell) == "quick_check_answers":
            cell.source = "\n".join(f"answer_q{n} = {letter!r}" for n, letter in answers.items()) + extra_before_tests
    return nbformat.v4.new_notebook(cells=cells)


def _keys() -> dict:
    """The keys of the published variants: this course has no secret."""
    from autograder.instructor.judging.cells import of_notebook
    from autograder.judges import variants
    cells = of_notebook(ROOT / "source" / NAME / f"{NAME}.ipynb")
    return {int(cell[-1]): variants.variant(calls[0].options["question"], None).key
            for cell, calls in cells.items() if cell.startswith("quiz_q")}


def _run(nb, tmp_path):
    config = Config()
    config.CourseDirectory.root = str(ROOT)
    executor = JudgedExecute(config=config, timeout=60)
    resources = {"nbgrader": {"assignment": NAME, "notebook": NAME, "student": "s"},
                 "metadata": {"path": str(tmp_path)}}
    nb, resources = executor.preprocess(nb, resources)
    return {cell: Verdict.from_data(v) for cell, v in resources["autograder"]["verdicts"].items()}, nb


def test_right_and_wrong_answers(tmp_path):
    keys = _keys()
    answers = dict(keys)
    answers[2] = next(letter for letter in "abcd" if letter != keys[2])
    verdicts, _ = _run(_lesson(answers), tmp_path)
    assert verdicts["quiz_q1"].ok and verdicts["quiz_q3"].ok and verdicts["quiz_q4"].ok
    assert verdicts["quiz_q2"].mistake == "wrong_choice"
    assert verdicts["train_loop_tests"].mistake == "no_record"  # never ran in this notebook


def test_a_hook_that_sees_every_test_cell_finds_no_key(tmp_path):
    """An input transformer sees the code of every cell the kernel runs, and would rewrite the
    answer to the key it finds there: no key is anywhere, not even in the instructor's
    notebook (the judge draws it with the variant), so it finds none, and the judge says wrong."""
    keys = _keys()
    wrong = {n: next(letter for letter in "abcd" if letter != key) for n, key in keys.items()}
    hook = '''
import re
SEEN = []
def _steal(lines):
    text = "".join(lines)
    SEEN.append(text)
    found = re.search(r'check_choice\\(.l3_q(\\d)., answer_q\\d, key=.(\\w).\\)', text)
    return [f"answer_q{found.group(1)} = {found.group(2)!r}\\n"] + lines if found else lines
get_ipython().input_transformers_cleanup.append(_steal)'''
    nb = _lesson(wrong, hook)
    nb.cells.append(nbformat.v4.new_code_cell("print(repr(SEEN))"))
    verdicts, nb = _run(nb, tmp_path)
    seen = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert all(f"check_choice('l3_q{n}', answer_q{n})" in seen for n in keys)  # each test cell
    assert "key" not in seen and "HIDDEN" not in seen
    assert all(verdicts[f"quiz_q{n}"].mistake == "wrong_choice" for n in keys)
    assert not any("key=" in c.source for c in nb.cells if (grade_id(c) or "").startswith("quiz_q"))


def test_a_notebook_that_stalls_its_kernel_again_and_again_is_cut_off_at_its_budget(tmp_path):
    """Each of these cells ignores the interrupt and spins: a timeout, a probe and a restart
    each. The notebook's budget (``notebook_timeout``) ends it; the cells it did not reach
    get an error that says so, and grading returns."""
    stall = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"
    cells = [nbformat.v4.new_code_cell("x = 1")] + [nbformat.v4.new_code_cell(stall) for _ in range(6)] \
        + [nbformat.v4.new_code_cell("print('reached', x)")]
    config = Config()
    config.CourseDirectory.root = str(ROOT)
    executor = JudgedExecute(config=config, timeout=2, notebook_timeout=12)
    resources = {"nbgrader": {"assignment": NAME, "notebook": NAME, "student": "s"},
                 "metadata": {"path": str(tmp_path)}}
    nb, _ = executor.preprocess(nbformat.v4.new_notebook(cells=cells), resources)
    errors = [[o.ename for o in c.outputs if o.output_type == "error"] for c in nb.cells]
    assert errors[0] == [] and "KernelUnresponsive" in errors[1]
    assert errors[-1] == ["NotebookTimeout"] and not any(o.get("text") for o in nb.cells[-1].outputs)
    cut = [e for e in errors if e == ["NotebookTimeout"]]
    assert 2 <= len(cut) <= 6, errors
    assert "ran out of the time this notebook may take" in nb.cells[-1].outputs[0].evalue


def test_the_budget_is_ten_cells_of_timeout_unless_set():
    from autograder.instructor.grading.time_budget import (
        notebook_budget,
        submission_budget,
    )

    assert notebook_budget(None, 120) == 1200 and notebook_budget(0, None) == 300
    assert notebook_budget(45, 120) == 45
    config = Config()
    config.JudgedExecute.timeout = 10
    assert submission_budget(config, 2) == 2 * 100 + 300
    config.JudgedExecute.notebook_timeout = 50
    assert submission_budget(config, 1) == 50 + 300


GARBLES_ITS_SOCKETS = r'''
import json, os, select, socket
for entry in sorted(os.listdir("/proc/self/fd"), key=int):
    fd = int(entry)
    try:
        if fd < 4 or not os.readlink("/proc/self/fd/%d" % fd).startswith("socket:"):
            continue
        probe = socket.socket(fileno=os.dup(fd))
        try:
            if probe.family != socket.AF_UNIX or probe.type != socket.SOCK_STREAM:
                continue
            probe.getpeername()
        except OSError:
            continue
        finally:
            probe.close()
        if select.select([], [fd], [], 0.1)[1]:
            os.write(fd, b"".join(json.dumps(m).encode() + b"\n" for m in ({"type": "pass"}, {"a": 1}) * 4))
    except OSError:
        pass
'''


def test_a_cell_that_garbles_its_kernels_sockets_costs_only_itself(tmp_path):
    """Code in the kernel can write into the kernel's end of its ZeroMQ connections. Once it
    did, the client's shell socket had no peer left and the next send blocked for ever (a
    whole grading run hung). Now the garbling cell and a later cell that hangs each get an
    error, the cells between and after run with the earlier cells' variables, and the
    notebook finishes."""
    stall = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"
    sources = ["x = 1", GARBLES_ITS_SOCKETS, "y = 2", "print('after', x, y)", stall, "print('end', x, y)"]
    config = Config()
    config.CourseDirectory.root = str(ROOT)
    executor = JudgedExecute(config=config, timeout=5)
    resources = {"nbgrader": {"assignment": NAME, "notebook": NAME, "student": "s"},
                 "metadata": {"path": str(tmp_path)}}
    nb, _ = executor.preprocess(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources]),
                                resources)
    errors = [[o.ename for o in c.outputs if o.output_type == "error"] for c in nb.cells]
    printed = ["".join(o.get("text", "") for o in c.outputs) for c in nb.cells]
    assert errors[0] == [] and errors[2] == [] and errors[3] == [] and errors[5] == [], errors
    assert "KernelUnresponsive" in errors[4]
    # the last cell ran (no NotebookTimeout): the notebook finished inside its own budget
    assert printed[3] == "after 1 2\n" and printed[5] == "end 1 2\n", printed
