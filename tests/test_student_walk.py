"""A scripted student walks every lesson in every language, through a real kernel, as a student
working alone (Binder, self-study) does:

* opens a fresh lesson and runs every cell in order (Run All): it runs to the end, every widget
  appears, and each check that fails before the student answers shows its message alone;
* for each exercise: a catalogued wrong answer, its check, ``hint()``, ``hint(2)``, ``hint(3)``,
  then the right answer and its check again; each prediction and Quick Check wrong, then right;
* stops one check half-way (Stop, i.e. an interrupt), then fixes the code; runs earlier cells
  again (the set-up cell, a demo) and checks again;
* at the end, ``lessons.progress()`` over the four lessons it saved.

After every step the kernel must show exactly what the grader says for that code, in the
notebook's language (found by the kernel from the notebook, as for a student), computed here in
the test process with the same checks; nothing it shows may name an internal id
(``03_zeroing_grad``, ``train_loop_tests``, ``l3_q1``) or the grader's code; and, over the whole
walk, nothing it shows is English in another language (tests/english.py; IPython's own traceback
of the check the student stopped aside).

One kernel per language walks the four lessons, each in its own folder with a fresh namespace,
as a student going from one notebook to the next (a kernel's start and its imports cost 4 s;
24 kernels would make this module twice as long).
"""
from __future__ import annotations

import json
import shutil

import nbformat
import pytest
import torch
from english import english_left
from helpers import ROOT, isolated_env, read, solution_code
from walk import (INTERNAL, WIDGET, Kernel, entry_code, in_language, run_here, said, spec_of_answer_cell,
                  stuck_forever, wrong_entry)

from autograder import messages
from autograder.judges import variants
from autograder.exercises.graph_predictions.judge import true_properties
from autograder.exercises.accumulation_predictions.judge import true_values, v_truth
from autograder.kernel.screen import wrap
from autograder.exercises import EXERCISES
from lessons import text as lesson_text

pytestmark = pytest.mark.slow

ASSIGNMENTS = ["01_requires_grad", "02_backward", "03_zeroing_grad", "04_no_grad"]
TAG = "raises-exception"


def _kernel_namespace() -> dict:
    """What a lesson's set-up cell gives the student's cells, here in the test process."""
    import lessons.exercises
    from autograder.kernel import checks

    return {"torch": torch, "nn": torch.nn, "exercises": lessons.exercises,
            **{name: getattr(checks, name) for name in checks.__all__}}


def _grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _check_cell(nb, spec):
    return next(c for c in nb.cells if c.cell_type == "code" and (_grade_id(c) or c.id) == spec.cells[1])


def _wrong_values(spec) -> str:
    """Predictions a student gets wrong: the graded parts (z and d; the four v) wrong too."""
    if spec.name == "graph_predictions":
        truth = true_properties()
        wrong = dict(truth, y=(truth["y"][0], not truth["y"][1], truth["y"][2]), z=(False, True, None),
                     d=(True, False, "SumBackward0"))
        return f"predictions = {wrong!r}"
    truth = {**true_values(), **v_truth(None)}
    wrong = dict(truth, grad_after_two=truth["grad_after_one"], v_grad_before=0.0,
                 v_grad_after_two=truth["v_grad_after_one"], v_grad_after_clear=truth["v_grad_after_two"])
    return "\n".join(f"{name} = {value!r}" for name, value in wrong.items())


def _quick_check_answers(nb, right: bool) -> str:
    letters = []
    for cell in nb.cells:
        if cell.cell_type == "code" and (_grade_id(cell) or "").startswith("quiz_q") and "check_choice" in cell.source:
            qid = cell.source.split('"')[1]
            key = variants.variant(qid, None).key
            letters.append((cell.source.split(", ")[1].rstrip(")\n "), key if right else
                            next(letter for letter in "abcd" if letter != key)))
    return "\n".join(f"{name} = {letter!r}" for name, letter in letters)


class Walk:
    """One language's walk: the kernel, the test process's mirror of the student's namespace,
    and what every step must show."""

    def __init__(self, lang: str, kernel: Kernel):
        self.lang, self.kernel, self.steps = lang, kernel, 0
        self.here = _kernel_namespace()
        self.screen = []  # (where, what the kernel showed): no English may be left in it

    def saw(self, where: str, shown) -> None:
        """Keep what a cell printed and its error, but for IPython's own traceback of a cell the
        student stopped. (The value a cell ends on is Python's repr of it, code: a demo's
        ``str(error)`` is PyTorch's own message.)"""
        if shown.ename != "KeyboardInterrupt":
            self.screen.append((where, f"{shown.printed}\n{shown.failure}"))

    def cell(self, code: str, when_printed=None):
        """Run ``code`` in the kernel and here: (what the kernel showed, (printed, failure) here)."""
        self.steps += 1
        shown = self.kernel.run(code, when_printed)
        self.saw(f"step {self.steps}: {code[:60]!r}", shown)
        with in_language(self.lang):
            expected = said(lambda: run_here(code, self.here, str(self.steps))) if when_printed is None else None
        for line in (shown.text, shown.failure):
            assert not INTERNAL.search(line), f"an internal name on the student's screen: {line!r}"
        return shown, expected

    def same(self, code: str, failing: bool | None = None):
        """Run ``code``: the kernel shows exactly what the grader says here."""
        shown, (printed, failure) = self.cell(code)
        self.failure = failure
        assert shown.text == printed, (code, shown.text, printed)
        assert shown.failure == failure, (code, shown.failure, failure)
        if failure:
            assert shown.ename == "CheckFailed", (code, shown.ename)
        if failing is not None:
            assert bool(failure) is failing, (code, failure or printed)
        return printed or failure


def _run_all(walk: Walk, nb) -> None:
    """Run All on the fresh notebook: every cell runs; only answer and check cells fail, and a
    failed check shows its message alone; every widget appears."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        shown = walk.kernel.run(cell.source)
        walk.saw(f"Run All, cell {cell.id}", shown)
        if shown.error is not None:
            assert TAG in cell.metadata.get("tags", []), f"{cell.id} failed on Run All: {shown.failure[-500:]}"
        if shown.ename == "CheckFailed":
            assert not INTERNAL.search(shown.failure) and shown.failure.strip(), (cell.id, shown.failure)
        if shown.ename == "NotImplementedError":  # an answer not written yet: one sentence, in the language
            with in_language(walk.lang):
                assert shown.failure == wrap(lesson_text.text("exercise.stub")), (cell.id, shown.failure)
        elif TAG in cell.metadata.get("tags", []) and "check_" in cell.source:
            assert shown.error is None or shown.ename == "CheckFailed", (cell.id, shown.failure[-500:])
        if ("widgets." in cell.source or "quiz.quick_check" in cell.source) and "import" not in cell.source:
            assert WIDGET in shown.kinds, f"{cell.id}: no widget appeared"


def _passed(walk: Walk, spec) -> str:
    with in_language(walk.lang):
        from autograder import titles

        return wrap(messages.text("general.passed", what=titles.text(titles.exercise(spec)),
                                  cases=messages.text("general.cases_visible"))) + "\n"


_ENGLISH: dict = {}  # exercise → the English message of its wrong answer's check


def _exercise(walk: Walk, nb, source, spec) -> str:
    """Wrong, check, three hints, right, check: the right answer's code."""
    check = _check_cell(nb, spec).source
    wrong = entry_code(wrong_entry(spec)) if spec.kind == "function" else _wrong_values(spec)
    right = solutions_of(source)[spec.cells[0]]
    walk.same(wrong, failing=False)
    message = walk.same(check, failing=True)
    if walk.lang == "en":
        _ENGLISH[spec.name] = walk.failure
    else:  # the same wrong answer's message in English (the English walk's, or computed here once)
        if spec.name not in _ENGLISH:
            with in_language("en"):
                _ENGLISH[spec.name] = said(lambda: run_here(check, dict(walk.here), "english"))[1]
        assert _ENGLISH[spec.name] != message, "not in the language"
    tiers = lesson_text.raw(f"hints.{spec.name}", walk.lang) if spec.hints else {}
    for level in (1, 2, 3)[:len(tiers)]:
        said_now = walk.same(f"exercises.{spec.name}.hint({level})", failing=False)
        assert wrap(tiers[str(level)]) in said_now  # laid out for the screen (autograder.kernel.screen)
    walk.same(right, failing=False)
    assert walk.same(check, failing=False) == _passed(walk, spec)
    return right


def _stop_half_way(walk: Walk, nb, source, spec) -> None:
    """The student runs a check on code that never ends, sees it hang, presses Stop, fixes the
    code: the fixed code passes."""
    walk.kernel.run(stuck_forever(spec))
    shown = walk.kernel.run(_check_cell(nb, spec).source, when_printed=("half-way", walk.kernel.interrupt))
    assert shown.ename == "KeyboardInterrupt", shown.failure[-500:]
    walk.same(solutions_of(source)[spec.cells[0]], failing=False)
    assert walk.same(_check_cell(nb, spec).source, failing=False) == _passed(walk, spec)


def solutions_of(source) -> dict:
    """grade id → model solution of each answer cell of ``source``. (Not cached by ``id(source)``:
    once a lesson's notebook is freed, the next lesson's can get its id, and with it the last
    lesson's solutions: CI failed so, KeyError 'predict' in the Swedish walk.)"""
    return {(_grade_id(c) or c.id): solution_code(c) for c in source.cells
            if c.metadata.get("nbgrader", {}).get("solution")}


def _walk_lesson(walk: Walk, folder, assignment: str) -> None:
    path = folder / f"{assignment}.ipynb"
    nb, source = read(path), read(ROOT / "source" / assignment / f"{assignment}.ipynb")
    walk.kernel.run(f"%reset -f\nimport os\nos.chdir({str(folder)!r})")  # the next notebook, a fresh namespace
    walk.here = _kernel_namespace()
    _run_all(walk, nb)
    setup = next(c.source for c in nb.cells if _grade_id(c) == "setup")
    run_here(setup, walk.here, "setup")
    answers: dict = {}
    specs = [spec_of_answer_cell(_grade_id(c)) for c in nb.cells if c.cell_type == "code" and _grade_id(c)]
    specs = [spec for spec in specs if spec is not None]
    for spec in specs:
        answers[spec.cells[0]] = _exercise(walk, nb, source, spec)
    # the Quick Checks: every answer wrong, each check; then right, each check
    quiz_cells = [c.source for c in nb.cells if (_grade_id(c) or "").startswith("quiz_q") and "check_choice" in c.source]
    for right in (False, True):
        walk.same(_quick_check_answers(nb, right), failing=False)
        for check in quiz_cells:
            walk.same(check, failing=not right)
    answers["quick_check_answers"] = _quick_check_answers(nb, True)
    # one check stopped half-way, then the fixed code; earlier cells run again, and a check again
    first = next(spec for spec in specs if spec.kind == "function")
    _stop_half_way(walk, nb, source, first)
    walk.kernel.run(setup)
    demo = next(c.source for c in nb.cells if c.cell_type == "code" and not _grade_id(c) and not c.metadata.get("tags"))
    assert walk.kernel.run(demo).error is None
    assert walk.same(_check_cell(nb, specs[0]).source, failing=False) == _passed(walk, specs[0])
    # the student saves the notebook with the answers they ended with
    for cell in nb.cells:
        if cell.cell_type == "code" and (_grade_id(cell) or cell.id) in answers:
            cell.source = answers[_grade_id(cell) or cell.id]
    nbformat.write(nb, str(path))


def _points(folder) -> int:
    return sum(cell.metadata.get("nbgrader", {}).get("points", 0) for assignment in ASSIGNMENTS
               for cell in read(folder / assignment / f"{assignment}.ipynb").cells
               if cell.metadata.get("nbgrader", {}).get("grade"))


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("student")


@pytest.mark.parametrize("lang", list(messages.NAMES))
def test_a_student_walks_the_course(lang, home, monkeypatch):
    monkeypatch.chdir(home)  # the test process's own checks: no course variants here
    course = home / lang
    release = ROOT / "release" / ("" if lang == "en" else lang)
    for assignment in ASSIGNMENTS:
        shutil.copytree(release / assignment, course / assignment, ignore=shutil.ignore_patterns("variants.json"))
    env = isolated_env(home / f"home-{lang}")
    env.pop("AUTOGRAD_LESSONS_LANG", None)
    env["XDG_CACHE_HOME"] = str(home / f"cache-{lang}")
    kernel = Kernel(env, course / ASSIGNMENTS[0])
    walk = Walk(lang, kernel)
    try:
        for assignment in ASSIGNMENTS:
            _walk_lesson(walk, course / assignment, assignment)
        shown = kernel.run("import lessons\nprint(lessons.progress())", timeout=600)
    finally:
        kernel.close()
    total = _points(course)
    lines = shown.text.splitlines()
    with in_language(lang):
        assert lines[0] == lesson_text.text("progress.title", got=total, total=total), shown.text
    assert all(line.startswith("✓") for line in lines[1:]), shown.text
    assert not INTERNAL.search(shown.text), shown.text
    # everything the kernel showed on the way (messages, hints, widgets' prints, progress()) has no
    # English left but code, identifiers and the glossary's words kept in English (tests/english.py)
    walk.saw("progress()", shown)
    left = english_left(walk.screen, lang)
    assert left == [], "\n".join(left)
