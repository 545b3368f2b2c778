"""Hostile and broken submissions of lesson 3, and what each must cost (test cells lost).

Each entry turns a correctly solved notebook into a bad one. ``lost`` lists the test
cells the student must lose (all other cells keep full marks); ``None`` means the
notebook cannot be graded at all and every test cell scores 0.
"""
from __future__ import annotations

import copy

from helpers import ROOT, grade_id

from autograder.instructor.judging.cells import of_notebook
from autograder.judges import variants


def _quick_check_keys() -> list:
    """The keys of lesson 3's graded Quick Checks in a course without a secret (every student
    gets the published variants): the tests' classes are such courses."""
    cells = of_notebook(ROOT / "source" / "03_zeroing_grad" / "03_zeroing_grad.ipynb")
    questions = [next(c.options["question"] for c in cells[f"quiz_q{n}"]) for n in range(1, 5)]
    return [variants.variant(question, None).key for question in questions]


KEYS = _quick_check_keys()
WRONG_Q1 = next(letter for letter in "abcd" if letter != KEYS[0])

ALL = None


def _set(nb, cell_id, source):
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if grade_id(cell) == cell_id:
            cell.source = source
    return nb


def _drop(nb, cell_id):
    nb = copy.deepcopy(nb)
    nb.cells = [c for c in nb.cells if grade_id(c) != cell_id]
    return nb


def _duplicate(nb, cell_id):
    nb = copy.deepcopy(nb)
    i = next(i for i, c in enumerate(nb.cells) if grade_id(c) == cell_id)
    twin = copy.deepcopy(nb.cells[i])
    twin.id = twin.id + "-copy"
    nb.cells.insert(i + 1, twin)
    return nb


def _retype(nb, cell_id):
    nb = copy.deepcopy(nb)
    for i, cell in enumerate(nb.cells):
        if grade_id(cell) == cell_id:
            nb.cells[i] = {"cell_type": "markdown", "id": cell.id, "metadata": cell.metadata,
                           "source": cell.source}
    import nbformat
    return nbformat.from_dict(nb)


def _with_output(nb, text):
    """The notebook with ``text`` as the saved output of its first code cell (41 MB: past
    what grading parses)."""
    import nbformat

    nb = copy.deepcopy(nb)
    cell = next(c for c in nb.cells if c.cell_type == "code")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    return nb


def _append(nb, cell_id, source):
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if grade_id(cell) == cell_id:
            cell.source += "\n" + source
    return nb


# a loop that never ends, as a student's forgotten exit: the check that runs it times out (its
# cell alone: the answer cell only defines it, so the class pays the cell timeout once, not twice)
LOOP = "def train(model, optimizer, loss_fn, batches):\n    while True:\n        pass\n"
# the right fit_line, and a check that passes in the judge, then raises an error whose class name
# and text hold escape sequences (clear the screen, set the window's title, go up a line, a
# carriage return, a right-to-left override): the cell shows an error (0 points) that the class
# summary names by its class name, on the instructor's terminal
ESCAPED_ERROR = (
    "_zz_check = check_fit_line\n"
    "def check_fit_line(*args, **kwargs):\n"
    "    _zz_check(*args, **kwargs)\n"
    "    if kwargs.get('cases') == 'hidden':\n"
    "        raise type('\\x1b[2J\\x1b[H\\x1b]0;pwned\\x07Zz\\x9b31m\\u202eok\\r  fine', (Exception,), {})"
    "('\\x1b[1A\\x1b[2Kall checks passed')\n")

# name → (how to make it from the solved notebook, or raw file text; test cells lost)
HOSTILE = {
    "loops_forever": (lambda nb: _set(nb, "train_loop", LOOP), {"train_loop_tests"}),
    "allocates_50_gb": (lambda nb: _set(nb, "fit_line", "buffer = bytearray(50 * 2**30)\n"),
                        {"fit_line_tests"}),
    "exits_the_process": (lambda nb: _set(nb, "train_loop", "import os\nos._exit(1)\n"),
                          {"train_loop_tests"}),
    "segfaults": (lambda nb: _set(nb, "fit_line", "import ctypes\nctypes.string_at(0)\n"),
                  {"fit_line_tests"}),
    "prints_100_mb": (lambda nb: _set(nb, "accumulation_predictions", 'print("x" * 100_000_000)\n'),
                      {"accumulation_predictions_tests"}),
    "calls_sys_exit": (lambda nb: _set(nb, "fit_line", "import sys\nsys.exit()\n"),
                       {"fit_line_tests"}),
    "deletes_a_test_cell": (lambda nb: _drop(nb, "train_loop_tests"), set()),
    "duplicates_an_answer_cell": (lambda nb: _duplicate(nb, "train_loop"), set()),
    "retypes_a_test_cell": (lambda nb: _retype(nb, "fit_line_tests"), set()),
    "edits_a_locked_test": (lambda nb: _set(nb, "train_loop_tests", "pass\n"), set()),
    "names_its_error_with_escapes": (lambda nb: _append(nb, "fit_line", ESCAPED_ERROR), {"fit_line_tests"}),
    "too_large": (lambda nb: _with_output(nb, "x" * (41 * 2 ** 20)), ALL),
    "not_json": ("{'cells': [", ALL),
    "empty_file": ("", ALL),
    "missing_notebook": (None, ALL),
}

# submission folders whose names are no student id the course accepts (student_ids): markup, a
# CSV line with a formula, escape sequences, a formula's first character, a right-to-left
# override, a name too long; each holds a right notebook, and none may be graded
NOT_PLAIN = ("<img src=x onerror=alert(1)>", "mallory,10,=1+1", "\x1b[2J\x1b]0;pwned\x07eve", "-dave",
             "bidi\u202eevil", "x" * 65)


WRONG_LOOP = (
    "def train(model, optimizer, loss_fn, batches):\n"
    "    losses = []\n"
    "    for x, y in batches:\n"
    "        loss = loss_fn(model(x), y)\n"
    "        loss.backward()\n"
    "        optimizer.step()\n"
    "        losses.append(loss.item())\n"
    "    return losses\n")
WRONG_FIT = "def fit_line(w, b, xs, ys, lr, steps):\n    pass\n"

# Code that tries to earn points it would not otherwise earn. Each must lose the cell it targets.
TAMPER = {
    "rebinds_the_check": (
        lambda nb: _set(nb, "fit_line", WRONG_FIT + "check_fit_line = lambda *args, **kwargs: None\n"),
        {"fit_line_tests"}),
    "patches_torch_allclose": (
        lambda nb: _set(nb, "train_loop", WRONG_LOOP + "torch.allclose = lambda *a, **k: True\n"),
        {"train_loop_tests"}),
    "patches_optimizer_zero_grad_and_step": (
        lambda nb: _set(nb, "train_loop", WRONG_LOOP.replace("optimizer.step()", "optimizer.zero_grad()")
                        + "torch.optim.Optimizer.zero_grad = lambda self, set_to_none=True: None\n"),
        {"train_loop_tests"}),
    "patches_the_grader_module": (
        lambda nb: _set(nb, "train_loop", WRONG_LOOP + "import autograder.kernel.loop.diagnose as d\n"
                        "from autograder.wire.verdict import PASS\n"
                        "d.diagnose = lambda trace, case, batches, name: PASS\n"),
        {"train_loop_tests"}),
    "patches_the_quick_check_judge": (
        lambda nb: _set(nb, "quick_check_answers", "import autograder.exercises.choice.judge as q\n"
                        "from autograder.wire.verdict import PASS\n"
                        "q.verify_value = lambda *args, **kwargs: PASS\n"
                        f"answer_q1, answer_q2, answer_q3, answer_q4 = {(WRONG_Q1, *KEYS[1:])!r}\n"),
        {"quiz_q1"}),
    "overrides_builtins": (
        lambda nb: _set(nb, "accumulation_predictions", "import builtins\nbuiltins.abs = lambda x: 0\n"
                        "grad_before, grad_after_one, grad_after_two, grad_after_clear = None, 1.0, 2.0, 3.0\n"),
        {"accumulation_predictions_tests"}),  # the patched abs() is the kernel's: the judge, elsewhere, still judges fit_line
    "cheats_only_when_graded": (
        lambda nb: _set(nb, "fit_line", WRONG_FIT + "import os\nif os.environ.get('NBGRADER_EXECUTION'):\n"
                        "    check_fit_line = lambda *args, **kwargs: None\n"),
        {"fit_line_tests"}),
    "patches_during_the_check": (
        lambda nb: _set(nb, "train_loop", WRONG_LOOP.replace(
            "    losses = []\n",
            "    import autograder.kernel.loop.trace as t\n    t.close = lambda a, b: True\n    losses = []\n")),
        {"train_loop_tests"}),
}
HOSTILE.update(TAMPER)
