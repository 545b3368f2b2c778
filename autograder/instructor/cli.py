"""``autograder``: the instructor's command line. It parses the arguments and hands them to the
command's own module.

    autograder grade ASSIGNMENT [--jobs N | --scheduler ADDRESS] [--student ID ...] [--force]
                                [--course DIR] [--db-url URL] [--timeout S] [--no-export] [--no-report]
                                [--no-sandbox]
    autograder report [ASSIGNMENT ...] [--course DIR] [--db-url URL]
    autograder course LANGUAGE --into DIR
    autograder secret [--course DIR]
    autograder variants ASSIGNMENT [--student ID ...] [--course DIR] [--db-url URL]
    autograder export [--roster FILE] [--id-is COLUMN] [--lms canvas|moodle ...]
                      [--canvas-assignment ASSIGNMENT=ID ...] [--assignment NAME ...] [--into DIR]
                      [--course DIR] [--db-url URL]

``grade`` (``grading.command``) grades every submission that is new or changed since it was
graded (``--force``: every one; or only the named students: a regrade touches nobody else),
here or on a Dask cluster (``--scheduler``), generates feedback, exports grades.csv, writes the
class report and prints the class's most common mistakes. ``report`` (``reports.command``)
writes the class reports again from the gradebook (without grading). ``course``
(``course.command``) writes the course directory in one language (nbgrader works on it
unchanged). ``secret`` and ``variants`` (``exchange.variants``) give each student their own
variant of every generated question. ``export`` (``lms_export``) writes the class's scores for
Canvas's and Moodle's gradebook import, beside nbgrader's grades.csv. Before anything starts, the arguments are checked (``preflight``): a
command that cannot run says why in one sentence, and what to run instead.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .fast_imports import skip_iri_grammar


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="autograder", description=__doc__.splitlines()[0])
    sub = top.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grade", help="autograde, feed back and export one assignment")
    g.add_argument("assignment")
    g.add_argument("--jobs", type=at_least_one, default=min(2, os.cpu_count() or 1),
                   help="submissions graded at once (default: 2, or 1 on a one-core machine)")
    g.add_argument("--student", action="append", default=None,
                   help="grade only this student (repeat for several); others are untouched")
    _course_arguments(g)
    g.add_argument("--timeout", type=at_least_one, default=None, help="seconds a cell may run")
    g.add_argument("--no-export", action="store_true", help="do not write grades.csv")
    g.add_argument("--no-report", action="store_true", help="do not write the class report (reports/)")
    g.add_argument("--no-sandbox", action="store_true",
                   help="run kernels without the operating system's sandbox (only where the machine cannot "
                        "sandbox: students' code can then read and change what you can)")
    g.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="grade on the Dask cluster of this scheduler (e.g. tcp://HOST:8786) instead of --jobs "
                        "here; the gradebook must then be a database server (--db-url postgresql+psycopg://...)")
    g.add_argument("--force", action="store_true",
                   help="grade again submissions that were graded before and have not changed since")
    r = sub.add_parser("report", help="write the class reports again from the gradebook (no grading)")
    r.add_argument("assignment", nargs="*",
                   help="the assignments whose page to write (default: every one in the gradebook)")
    _course_arguments(r)
    s = sub.add_parser("secret", help="make the course secret that gives each student their own questions")
    s.add_argument("--course", type=Path, default=Path.cwd(), help="course directory (default: here)")
    v = sub.add_parser("variants", help="write each student's own questions beside the released notebook")
    v.add_argument("assignment")
    v.add_argument("--student", action="append", default=None, help="a student not (yet) in the gradebook")
    _course_arguments(v)
    e = sub.add_parser("export", help="the class's scores for the LMS's gradebook import (Canvas, Moodle), "
                                      "beside nbgrader's grades.csv")
    e.add_argument("--roster", type=Path, default=None,
                   help="the students' LMS identifiers: the roster the hub records at each launch, or a CSV "
                        "with a student_id column and any of its columns (see the README)")
    e.add_argument("--id-is", choices=["email", "login_id", "sis_user_id", "lms_user_id", "canvas_user_id"],
                   default=None, help="which LMS identifier the student ids themselves are (for students "
                                      "the roster lacks)")
    e.add_argument("--lms", action="append", choices=["canvas", "moodle"], default=None,
                   help="write this LMS's file only (repeat for both; default: both)")
    e.add_argument("--canvas-assignment", action="append", default=None, metavar="ASSIGNMENT=ID",
                   help="the Canvas assignment an assignment's scores go to (its id, from its address); "
                        "without it Canvas's import makes a new assignment")
    e.add_argument("--assignment", action="append", default=None,
                   help="export only this assignment (repeat for several; default: every one in the gradebook)")
    e.add_argument("--into", type=Path, default=None, help="folder for the files (default: the course folder)")
    _course_arguments(e)
    c = sub.add_parser("course", help="the course in another language")
    c.add_argument("language", help="es, pt, zh, fr, sv (or en)")
    c.add_argument("--into", type=Path, help="write an nbgrader course directory in that language here")
    c.add_argument("--template", metavar="ASSIGNMENT",
                   help="print the prose file of a lesson with the English text in place, for a translator")
    return top


def _course_arguments(command) -> None:
    command.add_argument("--course", type=Path, default=Path.cwd(), help="course directory (default: here)")
    command.add_argument("--db-url", default=None, help="gradebook URL (default: nbgrader_config.py's)")


def at_least_one(text: str) -> int:
    """An argparse type: a whole number, 1 or more (``--jobs 0`` would grade nothing, forever)."""
    from .. import messages

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(messages.text("cli.at_least_one", got=text))
    return value


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    skip_iri_grammar()
    if args.command == "grade":
        from .grading.command import grade as command
    elif args.command == "report":
        from .reports.command import report as command
    elif args.command == "secret":
        from .exchange.variants import secret_command as command
    elif args.command == "variants":
        from .exchange.variants import variants_command as command
    elif args.command == "export":
        from .lms_export import command
    else:
        from .course import command
    return command(args)


if __name__ == "__main__":
    sys.exit(main())
