"""A lesson link on the course's JupyterHub opens the student's own copy of the lesson.

On Binder and in ``make lab`` the server's root holds the published lessons (``release/<lang>/``)
and a link opens one of them. On the course's JupyterHub the student's server starts on their
home, where nbgrader's exchange puts the lessons the instructor released: a link
``lessons/<lang>/<assignment>/<assignment>.ipynb`` (where the hub sends a student launched from
the LMS) opens ``~/<assignment>/<assignment>.ipynb``. If it is not there yet, the server fetches
it first, as the Assignment List's Fetch button does (``nbgrader fetch_assignment``, as the
student), and puts the fresh copy's prose in the link's language: each markdown cell the course
translates (``lessons/locale/<lang>/<assignment>.toml``, by cell id) and the notebook's language
in its metadata, so that checks, hints, grading and feedback speak it too. Code cells, answer
cells and grade ids are the instructor's release as it is. A copy the student already has is
opened as it is, never rewritten (their work, in the language they chose).
"""
from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

LESSON_PATH = re.compile(r"([A-Za-z0-9][A-Za-z0-9_-]{0,63})/\1\.ipynb")


def lesson_of(path: str) -> str | None:
    """The assignment ``path`` (``<a>/<a>.ipynb``) names, or None for any other path."""
    found = LESSON_PATH.fullmatch(path)
    return found.group(1) if found else None


async def fetch(root: Path, assignment: str) -> bool:
    """``nbgrader fetch_assignment`` in ``root``; whether the notebook is there afterwards."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "nbgrader", "fetch_assignment", assignment, cwd=root,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    await process.wait()
    return (root / assignment / f"{assignment}.ipynb").is_file()


def prose(lang: str, assignment: str) -> dict:
    """cell id → the markdown cell's text in ``lang`` ({} where the course has none)."""
    from . import prose as texts

    if lang == "en" or not texts.lesson_file(lang, assignment).is_file():
        return {}
    return texts.cells(lang, assignment)


def put_in_language(notebook: Path, assignment: str, lang: str) -> int:
    """The fresh copy's prose in ``lang`` (see the module); how many cells were translated."""
    import nbformat

    texts = prose(lang, assignment)
    if not texts:
        return 0
    nb = nbformat.read(str(notebook), as_version=4)
    done = 0
    for cell in nb.cells:
        answer = cell.get("metadata", {}).get("nbgrader", {}).get("solution")
        if cell.cell_type == "markdown" and cell.get("id") in texts and not answer:
            cell.source = texts[cell.id].strip("\n")
            done += 1
    nb.metadata["autograd_lessons"] = {"language": lang}
    nbformat.write(nb, str(notebook))
    return done


async def open_lesson(root: Path, path: str, lang: str) -> bool:
    """Make ``path`` (under ``root``, the student's home) there to open: True if it is (fetched
    now if it was not, then put in ``lang``), False if it names a lesson not released to them."""
    assignment = lesson_of(path)
    if assignment is None or (root / path).exists() or (root / assignment).exists():
        return True
    if not await fetch(root, assignment):
        return False
    put_in_language(root / path, assignment, lang)
    return True
