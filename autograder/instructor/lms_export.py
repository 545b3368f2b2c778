"""``autograder export``: the class's scores in the gradebook-import files of Canvas and Moodle,
beside nbgrader's ``grades.csv``.

Each file has one row per student of the gradebook and one column per assignment (the score
after the late penalty, as nbgrader's export gives it: 0 for an assignment not submitted), and
each row names the student the way that LMS's import finds them:

* **Canvas** (Grades › Import): the columns of Canvas's own gradebook export, ``Student``,
  ``ID`` (Canvas's user id), ``SIS User ID``, ``SIS Login ID``, ``Section``, then one column per
  assignment, headed ``Name (id)`` where the instructor gives the Canvas assignment's id
  (``--canvas-assignment 03_zeroing_grad=1234``: the import then fills that assignment) or
  ``Name`` (the import makes a new assignment of that name), and a second row ``Points
  Possible`` with each assignment's maximum. Canvas finds a student by ``ID``, else by ``SIS
  User ID`` or ``SIS Login ID``; ``Student`` and ``Section`` are shown, not matched.
* **Moodle** (Grades › Import › CSV file): ``First name``, ``Last name``, ``Email address``,
  ``Username``, ``ID number``, ``User ID`` (the columns Moodle's "Identify user by" maps to
  useremail, username, useridnumber and userid), then one column per assignment, which the
  import's "Grade item mappings" maps to a grade item (or makes a new one of that name).

nbgrader knows a student by the course's id only. The LMS's identifiers come from the roster
(``--roster``, ``hub/roster.py``): the one the hub records from each student's launch, or one
the instructor writes from the LMS's own export. ``--id-is COLUMN`` says which identifier the
student id itself is (``email`` where the hub makes ids of e-mail addresses, its default;
``login_id`` where they are LMS logins), for a student the roster lacks. A student with no
identifier the LMS's import reads is left out of its file and named in what ``export`` prints:
a row the LMS cannot place is not written for it to guess.

Every file is written by the course's CSV writer (``passes.export.write_csv``: fields quoted
where needed, no text a spreadsheet reads as a formula: a name from the LMS such as
``=HYPERLINK(...)`` starts with ``'``), UTF-8, comma-separated, which both imports read.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .hub import roster as rosters
from .passes.export import SUMMARY_COLUMNS, write_csv

CANVAS_IDS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_IDS = ["First name", "Last name", "Email address", "Username", "ID number", "User ID"]
POINTS_POSSIBLE = "    Points Possible"  # as Canvas's export writes the row's first cell
FILES = {"canvas": "grades_canvas.csv", "moodle": "grades_moodle.csv"}


@dataclass
class Class:
    """What the files are made of: the gradebook's assignments (name → max score, in due
    date order), students (id → their row of the roster, completed by ``--id-is``) and scores
    ((student, assignment) → score)."""
    assignments: dict
    students: dict
    scores: dict


def read_class(gradebook, roster: dict, id_is: str | None, assignments: list | None = None) -> Class:
    """The class from an open nbgrader ``Gradebook`` and a roster (student id → row)."""
    from .passes.export import CellCsvExportPlugin

    exporter = CellCsvExportPlugin(assignment=list(assignments or []))
    scores, maxima = {}, {}
    for row in exporter.summary_rows(gradebook):
        maxima[row["assignment"]] = row["max_score"]
        scores[(row["student_id"], row["assignment"])] = row["score"]
    known = {a.name: a for a in gradebook.assignments}
    order = sorted(maxima, key=lambda name: (known[name].duedate is None, known[name].duedate or 0, name))
    students = {}
    for student in gradebook.students:
        row = dict.fromkeys(rosters.COLUMNS, "")
        row.update(roster.get(student.id, {}))
        row["student_id"] = student.id
        if id_is and not row.get(id_is):
            row[id_is] = student.id
        if not row["name"]:
            row["name"] = " ".join(p for p in (student.first_name, student.last_name) if p) or student.id
        if not row["sortable_name"]:
            parts = [p for p in (student.last_name, student.first_name) if p]
            row["sortable_name"] = ", ".join(parts) if parts else row["name"]
        if not row["email"] and student.email:
            row["email"] = student.email
        students[student.id] = row
    return Class({name: maxima[name] for name in order}, students, scores)


def _names(row: dict) -> tuple:
    """(first name, last name): from ``sortable_name`` ("Last, First"), else the full name."""
    last, comma, first = row["sortable_name"].partition(", ")
    return (first, last) if comma else (row["name"], "")


def canvas_header(assignments: dict, ids: dict) -> list:
    return CANVAS_IDS + [f"{name} ({ids[name]})" if name in ids else name for name in assignments]


def canvas_rows(course: Class, ids: dict) -> tuple:
    """(header, rows, students left out): ``ids`` maps an assignment to its Canvas id."""
    header = canvas_header(course.assignments, ids)
    columns = dict(zip(course.assignments, header[len(CANVAS_IDS):]))
    rows = [{"Student": POINTS_POSSIBLE, **{columns[a]: m for a, m in course.assignments.items()}}]
    left_out = []
    for sid, student in course.students.items():
        found = {"ID": student["canvas_user_id"], "SIS User ID": student["sis_user_id"],
                 "SIS Login ID": student["login_id"]}
        if not any(found.values()):
            left_out.append(sid)
            continue
        rows.append({"Student": student["sortable_name"], **found, "Section": student["section"],
                     **{columns[a]: course.scores[(sid, a)] for a in course.assignments}})
    return header, rows, left_out


def moodle_rows(course: Class) -> tuple:
    """(header, rows, students left out)."""
    header = MOODLE_IDS + list(course.assignments)
    rows, left_out = [], []
    for sid, student in course.students.items():
        found = {"Email address": student["email"], "Username": student["login_id"],
                 "ID number": student["sis_user_id"], "User ID": student["lms_user_id"]}
        if not any(found.values()):
            left_out.append(sid)
            continue
        first, last = _names(student)
        rows.append({"First name": first, "Last name": last, **found,
                     **{a: course.scores[(sid, a)] for a in course.assignments}})
    return header, rows, left_out


def write(course: Class, into: Path, lms: list, canvas_ids: dict) -> dict:
    """Each LMS's file in ``into``: {lms: (path, students left out)}."""
    written = {}
    for name in lms:
        header, rows, left_out = canvas_rows(course, canvas_ids) if name == "canvas" else moodle_rows(course)
        path = into / FILES[name]
        write_csv(str(path), header, rows)
        written[name] = (path, left_out)
    return written


def write_nbgrader_csv(gradebook, into: Path, assignments: list | None = None) -> Path:
    """nbgrader's ``grades.csv`` (its columns, the course's writer), beside the LMS's files."""
    from .passes.export import CellCsvExportPlugin

    path = into / "grades.csv"
    write_csv(str(path), SUMMARY_COLUMNS, CellCsvExportPlugin(assignment=list(assignments or [])).summary_rows(gradebook))
    return path


def canvas_assignment_ids(pairs: list, known: set) -> dict:
    """``--canvas-assignment NAME=ID`` options → {name: Canvas id} (an id is digits)."""
    from .. import messages
    from .preflight import Refusal

    ids = {}
    for pair in pairs or []:
        name, _, number = pair.partition("=")
        if name not in known or not number.isdigit():
            raise Refusal(messages.text("cli.bad_canvas_assignment", given=pair, known=", ".join(sorted(known))))
        ids[name] = number
    return ids


def command(args) -> int:
    from nbgrader.api import Gradebook

    from .. import messages
    from . import preflight
    from .preflight import refuse

    try:
        root = preflight.course_folder(args.course)
        config = preflight.readable_config(root, args.db_url)
        db_url = config.CourseDirectory.db_url
        recorded = preflight.read_gradebook(db_url)
        for name in args.assignment or []:
            preflight.assignment(root, config, recorded, name, graded=True)
        if not recorded.assignments:
            raise preflight.Refusal(messages.text("cli.nothing_graded", folder=root))
        if not args.roster and not args.id_is:
            raise preflight.Refusal(messages.text("cli.export_no_ids"))
        roster = rosters.read(args.roster) if args.roster else {}
        canvas_ids = canvas_assignment_ids(args.canvas_assignment, recorded.assignments)
    except (preflight.Refusal, rosters.RosterError) as refusal:
        return refuse(refusal)
    into = Path(args.into or root)
    try:
        with Gradebook(db_url) as gradebook:
            course = read_class(gradebook, roster, args.id_is, args.assignment)
            plain = write_nbgrader_csv(gradebook, into, args.assignment)
        written = write(course, into, args.lms or list(FILES), canvas_ids)
    except OSError as error:
        return refuse(messages.text("cli.cannot_export", folder=into,
                                    reason=f"{type(error).__name__}: {error.strerror or error}"))
    print(messages.text("cli.export_written", lms="nbgrader", path=plain, count=len(course.students)))
    for lms, (path, left_out) in written.items():
        print(messages.text("cli.export_written", lms=lms.capitalize(), path=path,
                            count=len(course.students) - len(left_out)))
        if left_out:
            print(messages.text("cli.export_left_out", lms=lms.capitalize(), count=len(left_out),
                                students=preflight._names(left_out)))
    return 0
