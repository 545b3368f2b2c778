"""Shared helpers: a throw-away Jupyter home, notebook surgery, running nbgrader for real."""
from __future__ import annotations

import atexit
import hashlib
import html
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def isolated_env(home: Path) -> dict:
    """Environment for Jupyter/nbgrader processes that writes nothing outside ``home``."""
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update({
        "HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(home / ".jupyter"),
        "JUPYTER_DATA_DIR": str(home / ".local/share/jupyter"),
        "JUPYTER_RUNTIME_DIR": str(home / ".local/share/jupyter/runtime"),
        "IPYTHONDIR": str(home / ".ipython"),
        "MPLCONFIGDIR": str(home / ".matplotlib"),
        "TMPDIR": str(home / "tmp"),
        "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONWARNINGS": "ignore::DeprecationWarning",
    })
    env.pop("NBGRADER_DB_URL", None)
    return env


# nbgrader's own command (its console script's three lines) without the 0.9 s of an import it
# never uses, as ``autograder``'s own command skips it (autograder.instructor.fast_imports).
# The suite runs nbgrader dozens of times.
NBGRADER = ("import sys; from autograder.instructor.fast_imports import skip_iri_grammar; skip_iri_grammar(); "
            "sys.argv[0] = 'nbgrader'; from nbgrader.apps.nbgraderapp import main; sys.exit(main())")


def nbgrader(args: list, course: Path, env: dict, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-c", NBGRADER, *args], cwd=course, env=env,
                            capture_output=True, text=True, timeout=900)
    if check and result.returncode != 0:
        raise AssertionError(f"nbgrader {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result


_GENERATED: dict = {}  # (assignment, digest of what generation reads) -> a course nbgrader generated


def generate(course: Path, env: dict, assignment: str) -> None:
    """``nbgrader generate_assignment ASSIGNMENT`` in ``course`` (its ``source/`` and
    ``nbgrader_config.py`` in place). Dozens of courses in the suite generate the same notebook,
    at ~5 s a run, so nbgrader runs for real once per source, configuration and packages, and
    later courses get a copy of what it wrote (the release folder and the SQLite gradebook).
    A course with a gradebook of its own (a database URL, an existing file) runs nbgrader."""
    if env.get("NBGRADER_DB_URL") or (course / "gradebook.db").exists():
        nbgrader(["generate_assignment", assignment, "--force"], course, env)
        return
    digest = hashlib.sha256(env.get("PYTHONPATH", "").encode())
    for path in [course / "nbgrader_config.py", *sorted((course / "source" / assignment).rglob("*"))]:
        if path.is_file():
            digest.update(str(path.relative_to(course)).encode() + b"\0" + path.read_bytes())
    key = (assignment, digest.hexdigest())
    if key not in _GENERATED:
        scratch = Path(tempfile.mkdtemp(prefix="generated-"))
        atexit.register(shutil.rmtree, scratch, True)
        shutil.copy(course / "nbgrader_config.py", scratch)
        shutil.copytree(course / "source" / assignment, scratch / "source" / assignment)
        nbgrader(["generate_assignment", assignment, "--force"], scratch, env)
        _GENERATED[key] = scratch
    shutil.copytree(_GENERATED[key] / "release" / assignment, course / "release" / assignment, dirs_exist_ok=True)
    shutil.copy(_GENERATED[key] / "gradebook.db", course / "gradebook.db")


def page_text(path: Path) -> str:
    """A page as its reader sees its text: HTML's character references read (``&#39;`` is ')."""
    return html.unescape(Path(path).read_text())


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(str(path), as_version=4)


def grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def solution_code(source_cell) -> str:
    """A source solution cell with the solution markers removed: what a good student writes."""
    lines = source_cell.source.splitlines()
    return "\n".join(line for line in lines if "### BEGIN SOLUTION" not in line
                     and "### END SOLUTION" not in line)


def fill(release_nb, answers: dict):
    """A copy of a release notebook with the given solution cells replaced by ``answers``."""
    nb = nbformat.from_dict(release_nb)
    for cell in nb.cells:
        if grade_id(cell) in answers:
            cell.source = answers[grade_id(cell)]
    return nb


def solutions(source_nb) -> dict:
    return {grade_id(c): solution_code(c) for c in source_nb.cells
            if c.metadata.get("nbgrader", {}).get("solution")}


def source_notebooks() -> dict:
    """Each lesson's source notebook by name, e.g. ``"03_zeroing_grad"``."""
    return {p.stem: read(p) for p in sorted((ROOT / "source").glob("*/*.ipynb"))}


def exchange_home(home: Path, exchange: Path, course_id: str, student: str | None = None,
                  extra: str = "") -> dict:
    """``isolated_env`` of someone whose own nbgrader configuration points at an nbgrader
    exchange folder, as on a JupyterHub (where ``student`` would be their user name)."""
    env = isolated_env(home)
    config = Path(env["JUPYTER_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    text = f"c.Exchange.root = {str(exchange)!r}\nc.CourseDirectory.course_id = {course_id!r}\n"
    if student:
        text += f"c.CourseDirectory.student_id = {student!r}\n"
    (config / "nbgrader_config.py").write_text(text + extra)
    return env


def points(assignment: str) -> dict:
    """{test cell's grade id: its points} of an assignment, as its source notebook says (the
    tests read point totals from the notebooks, never from constants)."""
    nb = read(ROOT / "source" / assignment / f"{assignment}.ipynb")
    return {grade_id(c): c.metadata["nbgrader"]["points"] for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade")}


def exercise_points(name: str) -> int:
    """The points of a declared exercise's test cell."""
    from autograder.exercises import BY_NAME

    spec = BY_NAME[name]
    assignment = next(p.stem for p in (ROOT / "source").glob(f"0{spec.lesson}_*/*.ipynb"))
    return points(assignment)[spec.cells[1]]
