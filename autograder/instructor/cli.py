"""``autograder``: the instructor's command line.

    autograder grade ASSIGNMENT [--jobs N | --scheduler ADDRESS] [--student ID ...] [--force]
                                [--course DIR] [--db-url URL] [--timeout S] [--no-export] [--no-sandbox]
    autograder course LANGUAGE --into DIR

``grade`` grades every submission that is new or changed since it was graded (``--force``:
every one; or only the named students: a regrade touches nobody else), here or on a Dask
cluster (``--scheduler``), generates feedback, exports grades.csv and prints the class's most
common mistakes.
``course`` writes the course directory in one language (nbgrader works on it unchanged).
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
    g.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                   help="submissions graded at once (default: 2, or 1 on a one-core machine)")
    g.add_argument("--student", action="append", default=None,
                   help="grade only this student (repeat for several); others are untouched")
    g.add_argument("--course", type=Path, default=Path.cwd(), help="course directory (default: here)")
    g.add_argument("--db-url", default=None, help="gradebook URL (default: nbgrader_config.py's)")
    g.add_argument("--timeout", type=int, default=None, help="seconds a cell may run")
    g.add_argument("--no-export", action="store_true", help="do not write grades.csv")
    g.add_argument("--no-sandbox", action="store_true",
                   help="run kernels without the operating system's sandbox (only where the machine cannot "
                        "sandbox: students' code can then read and change what you can)")
    # grading on a Dask cluster, and rerunning (autograder/instructor/cluster.py, rerun.py)
    g.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="grade on the Dask cluster of this scheduler (e.g. tcp://HOST:8786) instead of --jobs "
                        "here; the gradebook must then be a database server (--db-url postgresql+psycopg://...)")
    g.add_argument("--force", action="store_true",
                   help="grade again submissions that were graded before and have not changed since")
    c = sub.add_parser("course", help="the course in another language")
    c.add_argument("language", help="es, pt, zh, fr, sv (or en)")
    c.add_argument("--into", type=Path, help="write an nbgrader course directory in that language here")
    c.add_argument("--template", metavar="ASSIGNMENT",
                   help="print the prose file of a lesson with the English text in place, for a translator")
    args = parser.parse_args(argv)
    if args.command == "course":
        return _course(args)

    from .. import messages
    from . import failures, grade, sandbox

    if not args.no_sandbox and not args.scheduler:  # a cluster's workers probe their own
        reason = sandbox.probe()
        if reason:
            print(f"autograder: this machine cannot sandbox grading kernels: {reason}. Grading without a "
                  "sandbox lets students' code read and change your files; if you accept that, run again "
                  "with --no-sandbox.", file=sys.stderr)
            return 2
    if args.scheduler:
        from . import cluster

        try:
            report = cluster.grade(args.course, args.assignment, args.scheduler, students=args.student,
                                   db_url=args.db_url, timeout=args.timeout, sandbox=not args.no_sandbox,
                                   force=args.force, export_to=None if args.no_export else "grades.csv")
        except cluster.Refused as exc:
            print(f"autograder: {exc}", file=sys.stderr)
            return 2
    else:
        report = grade.grade(args.course, args.assignment, jobs=args.jobs, students=args.student,
                             db_url=args.db_url, timeout=args.timeout, sandbox=not args.no_sandbox,
                             force=args.force, export_to=None if args.no_export else "grades.csv")
    if report.skipped:
        print(f"{len(report.skipped)} submissions unchanged since they were graded were skipped "
              "(--force grades them again)")
    failed = [o for o in report.outcomes if not o.ok]
    print(f"{args.assignment}: {len(report.outcomes)} submissions graded in {report.seconds:.1f} s "
          f"({len(failed)} could not be graded normally)")
    for outcome in failed:
        print(f"  {outcome.student}: {failures.describe(outcome.reason, f'{args.assignment}.ipynb')}")
    for student, fault in report.faults:
        print(f"  {student}: a grading process {fault}; its submission was graded again")
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
