"""What ``autograder grade``, ``report``, ``export`` and ``variants`` check before they start anything.

Is the folder a course, can its gradebook be read, is the assignment in it, did each named
student submit? Every "no" is a ``Refusal``: one sentence (``cli.*`` in the locale files) that
says what is wrong and what to run instead, printed without a traceback (``refuse``). Nothing here writes:
the gradebook is only read, through SQLAlchemy (no nbgrader import, so a refusal comes in well
under a second), and only if it exists, so a mistyped assignment or student name never adds
anything to the gradebook, and no judge, fork server or kernel is started for it.
"""
from __future__ import annotations

import difflib
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .. import messages
from . import student_ids
from .course_config import course_config, setting
from .printable import printable

CONNECT_TIMEOUT = 10  # seconds to reach a database server
LISTED = 12  # names listed in a refusal before "and N more"


class Refusal(Exception):
    """A command that cannot run as asked; its text says why and what to do."""


def refuse(why) -> int:
    """Say ``why`` a command does not run (a ``Refusal``, or its sentence); its exit status."""
    print(f"autograder: {why}", file=sys.stderr)
    return 2


@dataclass
class Recorded:
    """What the gradebook holds (nothing yet when it does not exist)."""
    exists: bool
    assignments: set = field(default_factory=set)
    students: set = field(default_factory=set)


def course_folder(path) -> Path:
    """The course folder: it exists and holds an ``nbgrader_config.py`` (or, configured from
    Jupyter's config path only, a ``source/`` folder)."""
    root = Path(path).expanduser().resolve()
    if not root.is_dir():
        raise Refusal(messages.text("cli.no_folder", folder=root))
    if not (root / "nbgrader_config.py").is_file() and not (root / "source").is_dir():
        raise Refusal(messages.text("cli.not_a_course", folder=root))
    return root


def readable_secret(root: Path) -> bytes | None:
    """The course secret (``course_secret``), or the refusal that says what is wrong with it."""
    from . import course_secret

    try:
        return course_secret.read(root)
    except (course_secret.SecretError, OSError) as error:
        raise Refusal(messages.text("cli.bad_secret", reason=error)) from None


def unreadable_config(root: Path, error: Exception) -> Refusal:
    """The refusal for a course configuration that cannot be read (a typo in
    nbgrader_config.py): it names the file and the line."""
    syntax = isinstance(error, SyntaxError) and error.lineno
    where = f"{error.filename}, line {error.lineno}" if syntax else "nbgrader_config.py"
    reason = error.msg if syntax else _first_line(error)
    return Refusal(messages.text("cli.bad_config", folder=root, where=where, reason=f"{type(error).__name__}: {reason}"))


def readable_config(root: Path, db_url: str | None):
    """The course's nbgrader configuration (``course_config``), or the refusal that says
    what in it is wrong."""
    try:
        return course_config(root, db_url)
    except Exception as error:  # noqa: BLE001  (whatever nbgrader_config.py raised: said in one sentence)
        raise unreadable_config(root, error) from None


def shown_url(db_url: str) -> str:
    """A database URL as it may be printed: without its password or our own options."""
    from sqlalchemy.engine import make_url

    try:
        url = make_url(db_url)
        return url.set(query={}).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001  (a URL SQLAlchemy cannot parse is shown as given, less a password)
        return db_url.split("@")[-1]


def sqlite_file(db_url: str) -> Path | None:
    """The file of an SQLite gradebook (None for other databases or an in-memory one)."""
    from sqlalchemy.engine import make_url

    url = make_url(db_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def read_gradebook(db_url: str) -> Recorded:
    """The assignments and students the gradebook holds, read without writing anything."""
    import sqlalchemy
    from sqlalchemy import exc

    shown = shown_url(db_url)
    try:
        path = sqlite_file(db_url)
        if path is not None and not path.exists():
            return Recorded(exists=False)
        url = sqlalchemy.engine.make_url(db_url)
        connect_args = {"connect_timeout": CONNECT_TIMEOUT} if url.get_backend_name() == "postgresql" else {}
        engine = sqlalchemy.create_engine(url, connect_args=connect_args)
    except (exc.ArgumentError, exc.NoSuchModuleError, ValueError) as e:
        raise Refusal(messages.text("cli.bad_url", url=shown, reason=_first_line(e))) from None
    except ImportError as e:
        raise Refusal(messages.text("cli.no_driver", url=shown, module=e.name or _first_line(e))) from None
    try:
        with engine.connect() as connection:
            tables = set(sqlalchemy.inspect(connection).get_table_names())
            recorded = Recorded(exists=True)
            if "assignment" in tables:
                recorded.assignments = {row[0] for row in connection.execute(sqlalchemy.text("SELECT name FROM assignment"))}
            if "student" in tables:
                recorded.students = {row[0] for row in connection.execute(sqlalchemy.text("SELECT id FROM student"))}
            return recorded
    except ImportError as e:
        raise Refusal(messages.text("cli.no_driver", url=shown, module=e.name or _first_line(e))) from None
    except exc.DBAPIError as e:
        raise Refusal(messages.text("cli.unreachable", url=shown, reason=_first_line(e.orig or e))) from None
    except exc.SQLAlchemyError as e:
        raise Refusal(messages.text("cli.unreachable", url=shown, reason=_first_line(e))) from None
    finally:
        engine.dispose()


def _first_line(error) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0][:200] if lines else type(error).__name__


def _names(names) -> str:
    names = sorted(printable(name) for name in names)  # (submission folders' names are the students')
    shown = ", ".join(names[:LISTED])
    if len(names) > LISTED:
        shown += messages.text("cli.and_more", n=len(names) - LISTED)
    return shown


def _guess(name: str, known) -> str:
    """" Did you mean …?" for a name close to a known one (or a path to one), else ""."""
    known = sorted(known)
    for candidate in (Path(name).name, Path(name).stem):
        if candidate in known and candidate != name:
            return messages.text("cli.did_you_mean", name=printable(candidate))
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return messages.text("cli.did_you_mean", name=printable(close[0])) if close else ""


def source_assignments(root: Path, config) -> set:
    source = root / setting(config, "source_directory", "source")
    return {p.name for p in source.iterdir() if p.is_dir() and not p.name.startswith(".")} if source.is_dir() else set()


def assignment(root: Path, config, recorded: Recorded, name: str, graded: bool = False) -> None:
    """The assignment is in the gradebook; ``graded``: and the gradebook is what a report reads."""
    if name in recorded.assignments:
        return
    in_source = source_assignments(root, config)
    if name in in_source:
        key = "cli.not_graded" if graded else "cli.not_generated"
        raise Refusal(messages.text(key, assignment=name, folder=root))
    known = recorded.assignments | in_source
    if not known:
        raise Refusal(messages.text("cli.no_assignments", assignment=name, folder=root))
    raise Refusal(messages.text("cli.unknown_assignment", assignment=name, known=_names(known))
                  + _guess(name, known))


def submitted(root: Path, config, name: str) -> list:
    """The students with a folder ``submitted/<student>/<assignment>/``."""
    base = root / setting(config, "submitted_directory", "submitted")
    return sorted(p.name for p in base.iterdir() if (p / name).is_dir()) if base.is_dir() else []


def students(root: Path, config, name: str, requested: list | None) -> list:
    """The students to grade: every one with a submission, or the named ones, each of whom
    must have one (a typo grades nobody and records nobody)."""
    found = submitted(root, config, name)
    folder = setting(config, "submitted_directory", "submitted")
    if not found:
        raise Refusal(messages.text("cli.no_submissions", assignment=name, folder=root / folder))
    if not requested:
        return found
    requested = list(dict.fromkeys(requested))
    for student in requested:  # (a folder of such a name is never graded: ``run.plain_ids``)
        why = student_ids.refusal(student)
        if why:
            raise Refusal(messages.text("cli.not_plain_student", student=repr(student), why=why))
    missing = [student for student in requested if student not in found]
    if missing:
        raise Refusal(messages.text("cli.unknown_student", assignment=name, student=printable(missing[0]),
                                    folder=printable(f"{folder}/{missing[0]}/{name}/"), known=_names(found))
                      + _guess(missing[0], found))
    return requested
