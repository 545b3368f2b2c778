"""Before grading a class, grade the instructor's own solution: never a silent class of zeros.

A grader that cannot grade the source notebook itself (a sandbox that cannot read the
grading environment's packages, a memory limit too small for torch, a solution that no
longer passes its own tests) would give every honest student 0 on every question, and the
run would end "successfully". So the source notebook goes through the same passes the
course configures for ``nbgrader autograde`` (the same sandbox, judge and fork server),
except the two that write the gradebook, and every test cell must get full marks.
``autograder grade`` does this once per run before any student is graded (in a worker,
with the run's servers), and stops with one sentence naming the first cell that fell short
and why; plain ``nbgrader autograde`` does it in JudgedExecute, once per notebook and
process, and refuses each notebook with the same sentence.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import nbformat

WRITES_GRADEBOOK = ("SaveAutoGrades", "AssignLatePenalties")


@dataclass(frozen=True)
class Shortfall:
    notebook: str
    cell: str
    score: float
    max_score: float
    error: str  # the cell's first error, "name: value" (or what it printed on stderr)


class SelfCheckFailed(RuntimeError):
    """The instructor's own notebook does not score full marks; its text says where and why."""


def _passes(config, phase: str) -> list:
    """The passes nbgrader's autograde runs in ``phase``, as configured (else nbgrader's own)."""
    from nbgrader.converters import Autograde
    from traitlets.utils.importstring import import_item

    names = config.Autograde[phase] if phase in config.Autograde else Autograde.class_traits()[phase].default()
    made = []
    for name in names:
        cls = import_item(name) if isinstance(name, str) else name
        if cls.__name__ in WRITES_GRADEBOOK:
            continue
        made.append(cls(config=config))
    return made


def _error(cell) -> str:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return f"{output.get('ename', '')}: {output.get('evalue', '')}"[:300]
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            return f"stderr: {''.join(output.get('text', ''))}"[:300]
    return ""


def grade_notebook(config, root: Path, assignment: str, notebook: Path, db_url: str) -> list:
    """The test cells of the instructor's ``notebook`` that do not get full marks
    (``Shortfall``), graded as a submission is."""
    from nbgrader import utils

    config = copy.deepcopy(config)
    nb = nbformat.read(str(notebook), as_version=4)
    resources = {"nbgrader": {"assignment": assignment, "notebook": notebook.stem, "student": "self-check",
                              "db_url": db_url, "self_check": True},  # the published variant of every question
                 "metadata": {"path": str(notebook.parent)}}
    try:
        for phase in ("sanitize_preprocessors", "autograde_preprocessors"):
            for step in _passes(config, phase):
                nb, resources = step(nb, resources)  # (a pass that is not enabled returns them unchanged)
    except Exception as error:  # noqa: BLE001  (the pipeline itself failed: that is the finding)
        return [Shortfall(notebook.stem, "", 0.0, 0.0, f"{type(error).__name__}: {error}"[:300])]
    found = []
    for cell in nb.cells:
        if utils.is_grade(cell) and cell.cell_type == "code":
            score, max_score = utils.determine_grade(cell)
            if score is not None and score < max_score:
                found.append(Shortfall(notebook.stem, cell.metadata.nbgrader["grade_id"], score, max_score,
                                       _error(cell)))
    return found


def check(config, root: Path, assignment: str, db_url: str) -> list:
    """The shortfalls of every source notebook of ``assignment`` (none: grading may start)."""
    from ..course_config import setting

    folder = Path(root) / setting(config, "source_directory", "source") / assignment
    found = []
    for notebook in sorted(folder.glob("*.ipynb")):
        key = (str(root), assignment, notebook.stem)
        _DONE[key] = []  # (the check's own run of the notebook must not check again)
        _DONE[key] = grade_notebook(config, Path(root), assignment, notebook, db_url)
        found += _DONE[key]
    return found


def sentence(assignment: str, shortfalls: list) -> str:
    """What the instructor reads when the check fails."""
    from ... import messages

    first = shortfalls[0]
    if not first.cell:  # the notebook could not be graded at all
        return messages.text("cli.self_check_crashed", assignment=assignment, notebook=first.notebook,
                             error=first.error)
    return messages.text("cli.self_check_failed", assignment=assignment, notebook=first.notebook, cell=first.cell,
                         score=f"{first.score:g}", max_score=f"{first.max_score:g}",
                         error=first.error or messages.text("cli.self_check_no_error"))


def lost_sentence(assignment: str, why: str) -> str:
    """What the instructor reads when the check itself could not finish."""
    from ... import messages

    return messages.text("cli.self_check_lost", assignment=assignment, why=why)


_DONE: dict = {}  # (course root, assignment, notebook) → its shortfalls, once checked in this process


def once(config, root: Path, assignment: str, notebook: str, db_url: str) -> None:
    """For plain ``nbgrader autograde``: check the instructor's ``notebook`` the first time this
    process grades it, and raise ``SelfCheckFailed`` (then and every later time) if it fell short."""
    from ..course_config import setting

    key = (str(root), assignment, notebook)
    if key not in _DONE:
        _DONE[key] = []  # (the check's own run of the notebook must not check again)
        source = Path(root) / setting(config, "source_directory", "source") / assignment / f"{notebook}.ipynb"
        _DONE[key] = grade_notebook(config, Path(root), assignment, source, db_url) if source.is_file() else []
    if _DONE[key]:
        raise SelfCheckFailed(sentence(assignment, _DONE[key]))
