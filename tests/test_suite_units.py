"""How ``make test`` splits the suite among its workers (tests/conftest.py): modules that share
something outside pytest run in one unit, one after the other, never side by side."""
from __future__ import annotations

import re
from pathlib import Path

from conftest import unit_of

HERE = Path(__file__).parent
SHARED = {
    # the session fixture that grades the hostile class once
    "hostile_course": re.compile(r"\bhostile_course\b"),
    # the session's JupyterHub (course_hub), its users and their servers
    "course_hub": re.compile(r"\bhub_helpers\b|\bcourse_hub\b"),
}


def modules_using(pattern: re.Pattern) -> list:
    return sorted(p.name for p in HERE.glob("test_*.py") if p.name != Path(__file__).name
                  and pattern.search(p.read_text()))


def test_modules_that_share_something_are_one_unit():
    for what, pattern in SHARED.items():
        users = modules_using(pattern)
        assert len(users) >= 2, (what, users)  # what this test guards is still shared
        assert {unit_of(f"tests/{name}::test") for name in users} == {what}, (what, users)


def test_every_other_module_is_a_unit_of_its_own():
    shared = {name for pattern in SHARED.values() for name in modules_using(pattern)}
    others = [p.name for p in HERE.glob("test_*.py") if p.name not in shared]
    assert len({unit_of(f"tests/{name}::test") for name in others}) == len(others)
    assert unit_of("tests/passes/test_overwrite_cells.py::test_x[a]") == "tests/passes/test_overwrite_cells.py"


def test_the_units_start_longest_first():
    """``UNIT_SECONDS`` names units that exist, and the longest units are handed out first, each
    whole and in its own order; a unit not listed counts by its markers."""
    from conftest import UNIT_SECONDS, pytest_collection_modifyitems

    class Item:
        def __init__(self, nodeid, *markers):
            self.nodeid, self.markers = nodeid, markers

        def get_closest_marker(self, name):
            return name if name in self.markers else None

    for unit in UNIT_SECONDS:
        assert unit in SHARED or (HERE.parent / unit).is_file(), unit
    items = [Item("tests/test_glossary.py::a"), Item("tests/test_widgets.py::a", "slow"),
             Item("tests/test_cluster.py::a", "slow"), Item("tests/test_attacks.py::a", "slow"),
             Item("tests/test_browser_report.py::a", "slow", "browser"), Item("tests/test_class_grading.py::a", "slow"),
             Item("tests/test_attacks.py::b", "slow"), Item("tests/test_hub_lti.py::a", "slow")]
    pytest_collection_modifyitems(None, items)
    assert [i.nodeid for i in items] == [
        "tests/test_attacks.py::a", "tests/test_attacks.py::b", "tests/test_cluster.py::a",
        "tests/test_class_grading.py::a", "tests/test_hub_lti.py::a", "tests/test_browser_report.py::a",
        "tests/test_widgets.py::a", "tests/test_glossary.py::a"]
