"""``autograder grade``: check the arguments, grade on this machine or a Dask cluster, say what
happened. Every sentence is in the ``[cli]`` section of the locale files (English only, for
the instructor), with its plural forms."""
from __future__ import annotations

import sys

from ... import messages
from .. import failures, preflight
from ..course_config import course_config
from ..preflight import refuse
from ..printable import printable
from . import run


def grade(args) -> int:
    try:
        root, students = checked(args)
    except preflight.Refusal as refusal:
        return refuse(refusal)
    if not args.no_sandbox and not args.scheduler:  # a cluster's workers probe their own
        from ..kernels import sandbox

        reason = sandbox.probe()
        if reason:
            return refuse(messages.text("cli.no_sandbox", reason=reason))
    export_to = None if args.no_export else "grades.csv"
    try:
        if args.scheduler:
            try:
                from . import dask
            except ImportError as missing:  # the ``cluster`` extra is not installed here
                return refuse(messages.text("cli.no_cluster", module=missing.name or missing))

            try:
                report = dask.grade(root, args.assignment, args.scheduler, students=students, db_url=args.db_url,
                                    timeout=args.timeout, sandbox=not args.no_sandbox, force=args.force,
                                    export_to=export_to, write_report=not args.no_report)
            except dask.Refused as exc:
                return refuse(exc)
        else:
            from .local import Local

            config = course_config(root, args.db_url, args.timeout, not args.no_sandbox)
            report = run.grade(root, args.assignment, Local(root, args.assignment, config, args.jobs), config,
                               students, args.force, export_to=export_to, write_report=not args.no_report)
    except KeyboardInterrupt:
        print(("\n" if sys.stderr.isatty() else "") + "autograder: "
              + messages.text("cli.interrupted", assignment=args.assignment), file=sys.stderr)
        return 130
    if report.refused:  # the instructor's own notebook fell short: nobody was graded
        return refuse(report.refused)
    say(report)
    return 0


def checked(args) -> tuple:
    """(course folder, students to grade or None for everyone), once everything
    the run needs is there (else ``preflight.Refusal``): a course, a gradebook that answers (on
    a server, for a cluster), the assignment in it, a submission from each named student.
    Nothing is written or started before."""
    root = preflight.course_folder(args.course)
    preflight.readable_secret(root)
    config = preflight.readable_config(root, args.db_url)
    url = config.CourseDirectory.db_url
    if args.scheduler and url.startswith("sqlite"):  # before the file is opened (and so created)
        from .dask import SQLITE_REFUSED

        raise preflight.Refusal(SQLITE_REFUSED.format(url=url.split("?")[0]))
    recorded = preflight.read_gradebook(url)
    preflight.assignment(root, config, recorded, args.assignment)
    named = preflight.students(root, config, args.assignment, args.student)
    return root, named if args.student else None  # None: everyone, skipping what is graded already


def say(report: run.Report) -> None:
    """What the run did, for the instructor: counts, every submission that could not be graded
    normally and why, what happened to the machinery, the common mistakes, where things are."""
    from ..reports.summary import mistake_name

    text = messages.text
    if report.skipped:
        print(text("cli.skipped", count=len(report.skipped)))
    failed = [o for o in report.outcomes if not o.ok]
    print(text("cli.graded", assignment=report.assignment, count=len(report.outcomes), seconds=f"{report.seconds:.1f}",
               failed=len(failed)))
    for folder, why in report.not_plain:  # (shown as Python writes it: every odd character visible)
        print("  " + text("cli.not_plain_id", folder=repr(folder), assignment=report.assignment, why=why))
    # what a student chose (a reason quoting their error) reaches the terminal without control characters
    for outcome in failed:
        why = failures.describe(outcome.reason, f"{report.assignment}.ipynb")
        print(f"  {printable(outcome.student)}: {printable(why)}")
    # a submission past its time budget or its memory is not graded again: its line above says why
    graded_again = {o.student for o in failed if o.reason in ("overran", "memory")}
    for student, fault in report.faults:
        if student not in graded_again:
            graded_again.add(student)
            print("  " + text("cli.graded_again", student=printable(student), fault=fault))
    for student in report.retried:
        print("  " + text("cli.retried", student=printable(student)))
    for server in report.replaced:
        print("  " + text("cli.replaced", server=server))
    if report.mistakes:
        print(text("cli.mistakes"))
        for mistake, count in report.mistakes:
            print(f"  {count:4d} · {mistake_name(mistake)}")
    if report.exported:
        print(text("cli.exported", path=report.exported))
    if report.server_cpu:
        print(text("cli.server_cpu", judge=f"{report.server_cpu.get('judge', 0.0):.2f}",
                   fork=f"{report.server_cpu.get('fork', 0.0):.2f}"))
    if report.page:  # last, where the instructor looks for what to open
        print(text("cli.report_written", path=report.page))
    elif report.page_error:
        print("autograder: " + text("cli.report_failed", assignment=report.assignment, error=printable(report.page_error)),
              file=sys.stderr)
