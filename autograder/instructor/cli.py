"""``autograder``: the instructor's command line.

    autograder grade ASSIGNMENT [--jobs N | --scheduler ADDRESS] [--student ID ...] [--force]
                                [--course DIR] [--db-url URL] [--timeout S] [--no-export] [--no-report]
                                [--no-sandbox]
    autograder report [ASSIGNMENT ...] [--course DIR] [--db-url URL]
    autograder course LANGUAGE --into DIR

``grade`` grades every submission that is new or changed since it was graded (``--force``:
every one; or only the named students: a regrade touches nobody else), here or on a Dask
cluster (``--scheduler``), generates feedback, exports grades.csv, writes the class report and
prints the class's most common mistakes. ``report`` writes the class reports again from the
gradebook (without grading). ``course`` writes the course directory in one language (nbgrader
works on it unchanged). Before anything starts, the arguments are checked (``preflight``): a
command that cannot run says why in one sentence, and what to run instead.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="autograder", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grade", help="autograde, feed back and export one assignment")
    g.add_argument("assignment")
    g.add_argument("--jobs", type=_at_least_one, default=min(2, os.cpu_count() or 1),
                   help="submissions graded at once (default: 2, or 1 on a one-core machine)")
    g.add_argument("--student", action="append", default=None,
                   help="grade only this student (repeat for several); others are untouched")
    g.add_argument("--course", type=Path, default=Path.cwd(), help="course directory (default: here)")
    g.add_argument("--db-url", default=None, help="gradebook URL (default: nbgrader_config.py's)")
    g.add_argument("--timeout", type=_at_least_one, default=None, help="seconds a cell may run")
    g.add_argument("--no-export", action="store_true", help="do not write grades.csv")
    g.add_argument("--no-report", action="store_true", help="do not write the class report (reports/)")
    g.add_argument("--no-sandbox", action="store_true",
                   help="run kernels without the operating system's sandbox (only where the machine cannot "
                        "sandbox: students' code can then read and change what you can)")
    # grading on a Dask cluster, and rerunning (autograder/instructor/cluster.py, rerun.py)
    g.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="grade on the Dask cluster of this scheduler (e.g. tcp://HOST:8786) instead of --jobs "
                        "here; the gradebook must then be a database server (--db-url postgresql+psycopg://...)")
    g.add_argument("--force", action="store_true",
                   help="grade again submissions that were graded before and have not changed since")
    _add_report_parser(sub)
    c = sub.add_parser("course", help="the course in another language")
    c.add_argument("language", help="es, pt, zh, fr, sv (or en)")
    c.add_argument("--into", type=Path, help="write an nbgrader course directory in that language here")
    c.add_argument("--template", metavar="ASSIGNMENT",
                   help="print the prose file of a lesson with the English text in place, for a translator")
    args = parser.parse_args(argv)
    if args.command == "course":
        return _course(args)
    if args.command == "report":
        return _report(args)

    from .. import messages
    from .grading import failures, preflight
    from .grading import run as grade
    from .kernels import sandbox

    try:
        args.course, args.student = _checked_grade_arguments(args)
    except preflight.Refusal as refusal:
        return _refuse(refusal)

    if not args.no_sandbox and not args.scheduler:  # a cluster's workers probe their own
        reason = sandbox.probe()
        if reason:
            print(f"autograder: this machine cannot sandbox grading kernels: {reason}. Grading without a "
                  "sandbox lets students' code read and change your files; if you accept that, run again "
                  "with --no-sandbox.", file=sys.stderr)
            return 2
    try:
        if args.scheduler:
            from .grading import dask as cluster

            try:
                report = cluster.grade(args.course, args.assignment, args.scheduler, students=args.student,
                                       db_url=args.db_url, timeout=args.timeout, sandbox=not args.no_sandbox,
                                       force=args.force, export_to=None if args.no_export else "grades.csv",
                                       write_report=not args.no_report)
            except cluster.Refused as exc:
                print(f"autograder: {exc}", file=sys.stderr)
                return 2
        else:
            report = grade.grade(args.course, args.assignment, jobs=args.jobs, students=args.student,
                                 db_url=args.db_url, timeout=args.timeout, sandbox=not args.no_sandbox,
                                 force=args.force, export_to=None if args.no_export else "grades.csv",
                                 write_report=not args.no_report)
    except KeyboardInterrupt:
        return _interrupted(args.assignment)
    if report.refused:  # the instructor's own notebook fell short: nobody was graded
        return _refuse(report.refused)
    if report.skipped:
        print(f"{len(report.skipped)} submissions unchanged since they were graded were skipped "
              "(--force grades them again)")
    failed = [o for o in report.outcomes if not o.ok]
    print(f"{args.assignment}: {len(report.outcomes)} submissions graded in {report.seconds:.1f} s "
          f"({len(failed)} could not be graded normally)")
    for outcome in failed:
        print(f"  {outcome.student}: {failures.describe(outcome.reason, f'{args.assignment}.ipynb')}")
    graded_again = set()
    for student, fault in report.faults:
        # a submission past its time budget is not graded again: its line above says why it scores 0
        if fault != "overran" and student not in graded_again:
            graded_again.add(student)
            print(f"  {student}: a grading process {fault}; its submission was graded again")
    for student in report.retried:
        print(f"  {student}: the grader failed on this submission and graded it again")
    for server in report.replaced:
        print(f"  the {server} server stopped answering and was replaced")
    if report.mistakes:
        print("Most common mistakes (students · mistake):")
        for mistake, count in report.mistakes:
            print(f"  {count:4d} · {summary_name(messages, mistake)}")
    if report.exported:
        print(f"grades exported to {report.exported}")
    if report.server_cpu:
        print("CPU used by the judge: {judge:.2f} s; by the fork server itself: {fork:.2f} s".format(
            judge=report.server_cpu.get("judge", 0.0), fork=report.server_cpu.get("fork", 0.0)))
    if report.page:  # last, where the instructor looks for what to open
        print(messages.text("cli.report_written", path=report.page))
    elif report.page_error:
        print("autograder: " + messages.text("cli.report_failed", assignment=args.assignment, error=report.page_error),
              file=sys.stderr)
    return 0


def _at_least_one(text: str) -> int:
    """An argparse type: a whole number, 1 or more (``--jobs 0`` would grade nothing, forever)."""
    from .. import messages

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(messages.text("cli.at_least_one", got=text))
    return value


def _interrupted(assignment: str) -> int:
    """Ctrl-C while grading: the servers and workers are stopped by then (``grade``'s cleanup)."""
    from .. import messages

    print(("\n" if sys.stderr.isatty() else "") + "autograder: " + messages.text("cli.interrupted", assignment=assignment),
          file=sys.stderr)
    return 130


def _refuse(refusal) -> int:
    print(f"autograder: {refusal}", file=sys.stderr)
    return 2


def _checked_grade_arguments(args):
    """The course folder and the students to grade, once everything the run needs is there
    (else ``preflight.Refusal``): a course, a gradebook that answers (on a server, for a
    cluster), the assignment in it, a submission from each named student. Nothing is written or started before."""
    from .grading import preflight

    root = preflight.course_folder(args.course)
    config = _course_config(root, args.db_url)
    url = config.CourseDirectory.db_url
    if args.scheduler and url.startswith("sqlite"):  # before the file is opened (and so created)
        from .grading.dask import SQLITE_REFUSED

        raise preflight.Refusal(SQLITE_REFUSED.format(url=url.split("?")[0]))
    recorded = preflight.read_gradebook(url)
    preflight.assignment(root, config, recorded, args.assignment)
    named = preflight.students(root, config, args.assignment, args.student)
    return root, named if args.student else None  # None: everyone, skipping what is graded already


def _course_config(root: Path, db_url: str | None):
    """The course's nbgrader configuration, or a refusal that says what in it is wrong."""
    from .grading import preflight
    from .grading import run as grade

    try:
        return grade.course_config(root, db_url)
    except Exception as error:  # noqa: BLE001  (whatever nbgrader_config.py raised: said in one sentence)
        raise preflight.unreadable_config(root, error) from None


def _add_report_parser(sub) -> None:
    r = sub.add_parser("report", help="write the class reports again from the gradebook (no grading)")
    r.add_argument("assignment", nargs="*",
                   help="the assignments whose page to write (default: every one in the gradebook)")
    r.add_argument("--course", type=Path, default=Path.cwd(), help="course directory (default: here)")
    r.add_argument("--db-url", default=None, help="gradebook URL (default: nbgrader_config.py's)")


def _report(args) -> int:
    """``autograder report``: each named (or every graded) assignment's page and the
    course-wide page, from the gradebook and the autograded notebooks."""
    from .. import messages
    from .grading import preflight

    try:
        root = preflight.course_folder(args.course)
        config = _course_config(root, args.db_url)
        recorded = preflight.read_gradebook(config.CourseDirectory.db_url)
        for name in args.assignment:
            preflight.assignment(root, config, recorded, name, graded=True)
        if not recorded.assignments:
            raise preflight.Refusal(messages.text("cli.nothing_graded", folder=root))
    except preflight.Refusal as refusal:
        return _refuse(refusal)
    from .reports import pages as report

    try:
        pages = report.write_all(root, config, args.assignment or None)
    except OSError as error:  # a reports/ folder that cannot be written, a full disk
        return _refuse(messages.text("cli.cannot_write", folder=root / report.FOLDER,
                                     reason=f"{type(error).__name__}: {error.strerror or error}"))
    for path in pages:
        print(messages.text("cli.report_written", path=path))
    return 0


def _course(args) -> int:
    from . import course

    if args.language not in course.LANGUAGES:
        print(f"autograder: no translation {args.language!r}; the languages are "
              f"{', '.join(course.LANGUAGES)}.", file=sys.stderr)
        return 2
    if args.template:
        print(course.template(args.language, args.template))
        return 0
    if not args.into:
        print("autograder: say where the course goes: autograder course LANGUAGE --into DIR", file=sys.stderr)
        return 2
    folder = course.build_course(args.language, args.into)
    print(f"{course.LANGUAGES[args.language]} course written to {folder}: run nbgrader there "
          "(nbgrader generate_assignment ASSIGNMENT, ...).")
    return 0


def summary_name(messages, mistake: str) -> str:
    """A mistake's name in words (an error without a verdict: the error's name)."""
    if mistake.startswith("error:"):
        return messages.text("general.error_named", error=mistake.removeprefix("error:"))
    return messages.text(f"mistakes.{mistake}") if messages.has(f"mistakes.{mistake}") else mistake


if __name__ == "__main__":
    sys.exit(main())
