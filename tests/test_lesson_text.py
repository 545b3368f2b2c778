"""The source notebooks' structure and the texts they point to: hints, exercises, cell ids."""
from __future__ import annotations

import re

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
    assert exercises.grad_predictions.name == "grad_predictions"


def test_lesson_3_asks_for_the_grad_predictions_before_the_demo_that_shows_them():
    ids = [c.id for c in NOTEBOOKS["03_zeroing_grad"].cells]
    assert ids.index("ex-a") < ids.index("grad_predictions") < ids.index("grad_predictions_tests") \
        < ids.index("backward-adds") < ids.index("adds-demo")


def test_visible_prediction_check_covers_all_four_predictions():
    cell = next(c for c in NOTEBOOKS["03_zeroing_grad"].cells if c.id == "grad_predictions_tests")
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
