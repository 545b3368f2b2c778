"""The source notebooks' structure and the texts they point to: hints, exercises, cell ids."""
from __future__ import annotations

import re

import lesson_length
import pytest
from helpers import source_notebooks

from lessons import exercises
from lessons.text import raw

NOTEBOOKS = source_notebooks()
EXERCISES = {name: ex for name, ex in vars(exercises).items() if isinstance(ex, exercises.Exercise)}


def _markdown(nb) -> str:
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_every_hint_the_notebooks_mention_exists_with_three_tiers():
    mentioned = {name for nb in NOTEBOOKS.values()
                 for name in re.findall(r"exercises\.(\w+)\.hint\(\)", _markdown(nb))}
    assert mentioned == set(EXERCISES)
    for name in mentioned:
        assert sorted(raw(f"hints.{EXERCISES[name].name}")) == ["1", "2", "3"], name


def test_exercise_hint_keys_are_unique_and_not_named_after_another_exercise():
    keys = [ex.name for ex in EXERCISES.values()]
    assert len(keys) == len(set(keys))
    # lesson 3's hints were once keyed "predict", the name of lesson 4's exercise
    for attr, ex in EXERCISES.items():
        assert ex.name not in set(EXERCISES) - {attr}, (attr, ex.name)
    assert exercises.accumulation_predictions.name == "accumulation_predictions"


def test_lesson_3_asks_for_the_accumulation_predictions_before_the_demo_that_shows_them():
    ids = [c.id for c in NOTEBOOKS["03_zeroing_grad"].cells]
    assert ids.index("ex-a") < ids.index("accumulation_predictions") < ids.index("accumulation_predictions_tests") \
        < ids.index("backward-adds") < ids.index("adds-demo")


def test_practice_exercises_sit_under_going_further_with_an_ungraded_check_and_the_rest_are_graded():
    """A declared exercise is graded (its test cell carries nbgrader's points) unless it is a
    practice one: then its answer cell and a plain check cell (no nbgrader metadata, so the judge
    answers it with the public scenarios, for no points) sit under the lesson's Going further."""
    from autograder.exercises import EXERCISES

    for spec in EXERCISES:
        if not spec.lesson:  # (the Quick Checks' check_choice)
            continue
        nb = next(nb for name, nb in NOTEBOOKS.items() if name.startswith(f"0{spec.lesson}_"))
        ids = [c.id for c in nb.cells]
        answer, test = (nb.cells[ids.index(cid)] for cid in spec.cells)
        assert answer.metadata["nbgrader"]["solution"] and not answer.metadata["nbgrader"]["grade"], spec.name
        if spec.practice:
            assert ids.index(lesson_length.GOING_FURTHER) < ids.index(spec.cells[0]) < ids.index(spec.cells[1])
            assert "nbgrader" not in test.metadata and test.source == f"{spec.check}({spec.answer[0]})"
        else:
            assert test.metadata["nbgrader"]["grade"] and test.metadata["nbgrader"]["points"] > 0, spec.name
    assert {s.name for s in EXERCISES if s.practice} == {"train_accumulate", "dead_parameters"}


def test_visible_prediction_check_covers_all_four_predictions():
    cell = next(c for c in NOTEBOOKS["03_zeroing_grad"].cells if c.id == "accumulation_predictions_tests")
    names = ("grad_before", "grad_after_one", "grad_after_two", "grad_after_clear")
    visible = cell.source.split("### BEGIN HIDDEN TESTS")[0]
    for name in names:
        assert f'"{name}": {name}' in visible


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_markdown_cells_have_meaningful_ids_and_locked_metadata(name):
    for cell in NOTEBOOKS[name].cells:
        assert re.fullmatch(r"[a-z0-9_-]+", cell.id) and not re.fullmatch(r"[0-9a-f]{8,}", cell.id)
        if cell.cell_type == "markdown":
            meta = cell.metadata["nbgrader"]
            assert meta == {"grade": False, "grade_id": cell.id, "locked": True,
                            "schema_version": 3, "solution": False, "task": False}, cell.id


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_demo_code_cells_carry_no_english_prose(name):
    for cell in NOTEBOOKS[name].cells:
        if cell.cell_type == "code" and not cell.metadata.get("nbgrader", {}).get("solution"):
            assert not re.search(r"^\s*#(?!## (BEGIN|END) )", cell.source, re.M), cell.id


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_lesson_keeps_the_length_limits(name):
    """Core ≤ 60 minutes and ≤ 2,000 words of prose, every markdown cell ≤ 120 words, by the
    rule in tests/lesson_length.py (the one benchmarks/bench_course.py prints). The optional
    "Going further" section (from the cell ``going-further`` to the end) is not part of the
    hour and holds no graded cell (an ungraded practice question may sit there)."""
    assert lesson_length.problems(name, NOTEBOOKS[name]) == []


def test_lesson_length_rule_counts_what_the_issue_says():
    import nbformat.v4 as v4
    cells = [v4.new_markdown_cell(" ".join(["word"] * 150) + " * = `x`", id="intro"),
             v4.new_code_cell("import torch", id="setup", metadata={"nbgrader": {"locked": True}}),
             v4.new_code_cell("x = 1", id="demo"),
             v4.new_code_cell('quiz.quick_check("p1", "p2")', id="practice"),
             v4.new_code_cell('check_choice("q1", answer_q1)', id="quiz_q1",
                              metadata={"nbgrader": {"grade": True, "grade_id": "quiz_q1"}}),
             v4.new_code_cell("def f():\n### BEGIN SOLUTION\n    a = 1\n\n    return a\n### END SOLUTION",
                              id="f", metadata={"nbgrader": {"solution": True, "grade_id": "f"}}),
             v4.new_code_cell("check_f(f)", id="f_tests",
                              metadata={"nbgrader": {"grade": True, "grade_id": "f_tests"}}),
             v4.new_markdown_cell("## Going further\n\nMore.", id=lesson_length.GOING_FURTHER),
             v4.new_code_cell("y = 2", id="extra"),
             v4.new_code_cell('quiz.quick_check("p3")', id="more-practice")]
    parts = lesson_length.measure(v4.new_notebook(cells=cells))
    core, further = parts["core"], parts["further"]
    assert (core.words, core.demos, core.questions, core.exercise_minutes) == (151, 1, 3, [7])
    assert core.minutes == 151 / 150 + 1 + 3 * 2 + 7
    assert (further.words, further.demos, further.minutes) == (3, 1, 3 / 150 + 1 + 2)  # "##" is no word
    assert (core.graded, further.graded, further.questions) == (2, 0, 1)


def test_going_further_may_hold_practice_but_no_graded_cell():
    import nbformat.v4 as v4

    def lesson(*extra):
        return v4.new_notebook(cells=[v4.new_markdown_cell("## Going further", id=lesson_length.GOING_FURTHER),
                                      *extra])
    practice = v4.new_code_cell('quiz.quick_check("p3")', id="more-practice")
    graded = v4.new_code_cell('check_choice("q1", answer_q1)', id="quiz_q1",
                              metadata={"nbgrader": {"grade": True, "grade_id": "quiz_q1"}})
    assert lesson_length.problems("x", lesson(practice)) == []
    assert lesson_length.problems("x", lesson(practice, graded)) == [
        "x: the Going further section holds graded cells (1)"]
