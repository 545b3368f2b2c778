"""The course in another language: one source of truth for code, prose per language.

The English source notebooks under ``source/`` are the only place code lives. A
translation is prose only:

* ``lessons/locale/<lang>/<assignment>.toml``: the text of every markdown cell of that
  lesson's source notebook, keyed by cell id (``[cells]``);
* ``lessons/locale/<lang>.toml`` and ``autograder/locale/<lang>.toml``: every message the
  widgets, hints and the grader show.

``translated`` builds a lesson in a language: the English notebook with each markdown
cell's text replaced and ``autograd_lessons.language`` set in its metadata, so that code
cells, grade ids, test cells and points are the same in every language (one gradebook
entry, the same checks, the same score) and the kernel, the grader and the feedback
know which language the student reads. ``build_course`` writes a whole nbgrader course
directory in one language; ``nbgrader generate_assignment``, ``autograde`` and
``generate_feedback`` work on it unchanged.
"""
from __future__ import annotations

import copy
import functools
import shutil
from pathlib import Path

import nbformat

from lessons import prose

from .. import messages

ROOT = Path(__file__).resolve().parents[2]  # the repository: its root is the course directory
PROSE = prose.LOCALE
LANGUAGES = messages.NAMES
ASSIGNMENTS = ("01_requires_grad", "02_backward", "03_zeroing_grad", "04_no_grad")


class TranslationError(ValueError):
    pass


def prose_file(lang: str, assignment: str) -> Path:
    return prose.lesson_file(lang, assignment)


def source_notebook(assignment: str, root: Path = ROOT) -> Path:
    return root / "source" / assignment / f"{assignment}.ipynb"


def markdown_cells(nb) -> dict:
    """cell id → text of every markdown cell, in order."""
    return {cell.id: cell.source for cell in nb.cells if cell.cell_type == "markdown"}


def read_prose(lang: str, assignment: str) -> dict:
    """cell id → text of every translated markdown cell: the lesson's file and its exercises'
    task cells (``lessons.prose``)."""
    return prose.cells(lang, assignment)


@functools.cache
def _prose_of(source: str, mtime: int, lang: str, assignment: str) -> dict:
    nb = nbformat.read(source, as_version=4)
    try:
        prose = read_prose(lang, assignment)
    except (OSError, ValueError):
        return {}
    by_grade_id = {}
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.cell_type == "markdown" and grade_id and cell.get("id") in prose:
            by_grade_id[grade_id] = prose[cell.id].strip("\n")
    return by_grade_id


def prose_of(source: Path, lang: str, assignment: str) -> dict:
    """{grade id: text in ``lang``} of the markdown cells of the instructor's notebook
    ``source`` that the course translates ({} where it has no translation)."""
    if lang not in LANGUAGES or lang == "en" or not prose_file(lang, assignment).is_file():
        return {}
    try:
        return _prose_of(str(source), Path(source).stat().st_mtime_ns, lang, assignment)
    except (OSError, ValueError):
        return {}


def translated(nb, lang: str, prose: dict):
    """A copy of the English notebook ``nb`` with its prose in ``lang``."""
    out = copy.deepcopy(nb)
    if lang != "en":
        wanted = markdown_cells(nb)
        missing, extra = sorted(set(wanted) - set(prose)), sorted(set(prose) - set(wanted))
        if missing or extra:
            raise TranslationError(f"{lang}: cells missing {missing}, cells not in the notebook {extra}")
        for cell in out.cells:
            if cell.cell_type == "markdown":
                cell.source = prose[cell.id].strip("\n")
    out.metadata["autograd_lessons"] = {"language": lang}
    return out


def translated_source(assignment: str, lang: str, root: Path = ROOT):
    nb = nbformat.read(str(source_notebook(assignment, root)), as_version=4)
    return translated(nb, lang, read_prose(lang, assignment) if lang != "en" else {})


def _literal(text: str) -> str:
    """``text`` as a TOML multi-line literal string (no escapes to get wrong)."""
    if "'''" in text:
        raise TranslationError("a cell contains ''' and cannot be a TOML literal string")
    return "'''\n" + text.strip("\n") + "\n'''"


def task_cells(assignment: str) -> dict:
    """cell id → the exercise whose task that markdown cell states (its ``task``), in ``assignment``."""
    return {cell_id: e.name for e in prose.exercises_of(assignment) for cell_id in e.task}


def template(lang: str, assignment: str, root: Path = ROOT) -> str:
    """The prose file of a lesson with the English text in place, for a translator to replace.
    Its exercises' task cells are not in it (each exercise's go in the ``[task]`` table of its
    folder's ``locale/<lang>.toml``, ``lessons.prose``): a closing comment names them."""
    nb = nbformat.read(str(source_notebook(assignment, root)), as_version=4)
    owners = task_cells(assignment)
    lines = [f"# {assignment} in {LANGUAGES.get(lang, lang)}: the text of each markdown cell of",
             f"# source/{assignment}/{assignment}.ipynb, by cell id. Code cells are never translated.",
             "", "[cells]"]
    for cell_id, text in markdown_cells(nb).items():
        if cell_id not in owners:
            lines += [f"{cell_id} = {_literal(text)}", ""]
    for name in dict.fromkeys(owners.values()):
        ids = ", ".join(cell_id for cell_id, owner in owners.items() if owner == name)
        lines.append(f"# cells {ids}: in [task] of autograder/exercises/{name}/locale/{lang}.toml")
    return "\n".join(lines) + "\n"


# nbgrader's stub of a code answer: the comment is in the notebook's language, the line that raises
# stays Python (the grader's messages and the lessons name it: "replace `raise NotImplementedError()`"),
# and without a message of its own (the lessons show such an exception as one sentence, lessons/stub.py)
RAISE = "raise NotImplementedError()"


def stubs(lang: str) -> dict:
    """nbgrader's ``ClearSolutions`` stubs for a notebook in ``lang``: ``code`` (per kernel
    language) and ``text``, from the ``[release]`` section of ``autograder/locale/<lang>.toml``."""
    words = messages._GRADER.raw("release", lang)
    return {"code": {"python": f"# {words['code_stub']}\n{RAISE}"}, "text": words["text_stub"]}


def stub_config(lang: str) -> str:
    """The lines of an ``nbgrader_config.py`` that make ``generate_assignment`` write ``lang``'s stubs."""
    stub = stubs(lang)
    return (f"\n# The answer stubs in {LANGUAGES[lang]} (autograder.instructor.course.stubs)\n"
            f"c.ClearSolutions.code_stub = {stub['code']!r}\nc.ClearSolutions.text_stub = {stub['text']!r}\n")


def stub_in(lang: str, released: str) -> str:
    """``released``, the source of an answer cell of the English release (its stub written by
    nbgrader), with the stub's words in ``lang``: the source of the same cell of ``lang``'s release."""
    english, ours = stubs("en"), stubs(lang)
    comment = english["code"]["python"].split("\n")[0]
    return released.replace(comment, ours["code"]["python"].split("\n")[0]).replace(english["text"], ours["text"])


def build_course(lang: str, into: Path, root: Path = ROOT) -> Path:
    """An nbgrader course directory whose source notebooks are in ``lang``, and whose released
    notebooks get their answer stubs in ``lang`` (``stub_config``)."""
    into = Path(into)
    into.mkdir(parents=True, exist_ok=True)
    config = (root / "nbgrader_config.py").read_text()
    (into / "nbgrader_config.py").write_text(config + (stub_config(lang) if lang != "en" else ""))
    for assignment in ASSIGNMENTS:
        folder = into / "source" / assignment
        folder.mkdir(parents=True, exist_ok=True)
        for extra in source_notebook(assignment, root).parent.iterdir():
            if extra.suffix != ".ipynb" and extra.is_file():
                shutil.copy(extra, folder / extra.name)
        nbformat.write(translated_source(assignment, lang, root), str(folder / f"{assignment}.ipynb"))
    return into


def available() -> list:
    """The languages with translations in the lessons package (English always)."""
    return ["en"] + [lang for lang in LANGUAGES if lang != "en" and (PROSE / lang).is_dir()]


def release_languages(root: Path = ROOT, languages: list | None = None) -> list:
    """Regenerate ``release/<lang>/`` for every translated language: build the course in that
    language in a scratch folder, let nbgrader generate the student versions there, and
    copy them into this repository (committed, so Binder opens them)."""
    import os
    import subprocess
    import sys
    import tempfile

    written = []
    for lang in languages or available()[1:]:
        with tempfile.TemporaryDirectory() as scratch:
            course = build_course(lang, Path(scratch) / "course", root)
            bin_dir = str(Path(sys.executable).parent)  # nbgrader runs alembic from the same environment
            env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
                   "HOME": scratch, "JUPYTER_CONFIG_DIR": f"{scratch}/jupyter",
                   "JUPYTER_DATA_DIR": f"{scratch}/jupyter", "NBGRADER_DB_URL": f"sqlite:///{scratch}/gradebook.db"}
            nbgrader = str(Path(sys.executable).parent / "nbgrader")
            for assignment in ASSIGNMENTS:
                subprocess.run([nbgrader, "generate_assignment", assignment, "--force"], cwd=course, env=env,
                               check=True, capture_output=True)
                target = root / "release" / lang / assignment
                target.mkdir(parents=True, exist_ok=True)
                shutil.copy(course / "release" / assignment / f"{assignment}.ipynb", target / f"{assignment}.ipynb")
                written.append(target / f"{assignment}.ipynb")
    return written


def command(args) -> int:
    """``autograder course LANGUAGE --into DIR`` (or ``--template ASSIGNMENT``)."""
    import sys

    if args.language not in LANGUAGES:
        print("autograder: " + messages.text("cli.no_translation", language=repr(args.language),
                                             languages=", ".join(LANGUAGES)), file=sys.stderr)
        return 2
    if args.template:
        print(template(args.language, args.template))
        return 0
    if not args.into:
        print("autograder: " + messages.text("cli.course_where"), file=sys.stderr)
        return 2
    folder = build_course(args.language, args.into)
    print(messages.text("cli.course_written", language=LANGUAGES[args.language], folder=folder))
    return 0


if __name__ == "__main__":
    for path in release_languages():
        print(path.relative_to(ROOT))
