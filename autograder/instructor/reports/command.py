"""``autograder report``: each named (or every graded) assignment's page and the course-wide page,
written again from the gradebook and the autograded notebooks, without grading."""
from __future__ import annotations

from ... import messages
from .. import preflight
from ..preflight import refuse


def report(args) -> int:
    try:
        root = preflight.course_folder(args.course)
        config = preflight.readable_config(root, args.db_url)
        recorded = preflight.read_gradebook(config.CourseDirectory.db_url)
        for name in args.assignment:
            preflight.assignment(root, config, recorded, name, graded=True)
        if not recorded.assignments:
            raise preflight.Refusal(messages.text("cli.nothing_graded", folder=root))
    except preflight.Refusal as refusal:
        return refuse(refusal)
    from . import pages

    try:
        written = pages.write_all(root, config, args.assignment or None)
    except OSError as error:  # a reports/ folder that cannot be written, a full disk
        return refuse(messages.text("cli.cannot_write", folder=root / pages.FOLDER,
                                    reason=f"{type(error).__name__}: {error.strerror or error}"))
    for path in written:
        print(messages.text("cli.report_written", path=path))
    return 0
