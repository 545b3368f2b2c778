"""``autograder export``: the class's scores for Canvas's and Moodle's gradebook import, read back
the way each LMS documents its import, on a gradebook built with nbgrader's own API and a roster
as the hub records it (names and identifiers from the LMS, hostile ones included).

Canvas (Grades › Import): the header's columns Student, ID, SIS User ID, SIS Login ID, Section,
then one per assignment, "Name (id)" for an existing assignment (by that id) or "Name" for a new
one; a "Points Possible" row; a student found by ID, else SIS User ID, else SIS Login ID.
Moodle (Grades › Import › CSV file): a column the instructor maps to a user field (email
address, username, ID number or user id) to find the student, each other column mapped to a
grade item.
"""
from __future__ import annotations

import csv
import re
import shutil

import pytest
from nbgrader.api import Gradebook

from autograder.instructor import cli
from autograder.instructor.hub import roster
from autograder.instructor.passes.export import FORMULA_FIRST, NUMBER

pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # nbgrader's own, harmless

# The LMS's own users: what each knows them by (Canvas id, SIS user id, login id, e-mail, Moodle id)
LMS_USERS = [
    {"student_id": "ana@uni.example", "canvas_user_id": "101", "sis_user_id": "S-1", "login_id": "ana",
     "email": "ana@uni.example", "lms_user_id": "7", "name": "Ana Pérez", "sortable_name": "Pérez, Ana"},
    # a name that is a formula, a comma and quotes: the LMS's to hold, never a spreadsheet's to run
    {"student_id": "bo@uni.example", "canvas_user_id": "", "sis_user_id": "S-2", "login_id": "bo",
     "email": "bo@uni.example", "lms_user_id": "8", "name": '=HYPERLINK("http://x.example","Bo")',
     "sortable_name": '=HYPERLINK("http://x.example","Bo"), "Bo", Jr.'},
    {"student_id": "wang@uni.example", "canvas_user_id": "", "sis_user_id": "", "login_id": "wang",
     "email": "wang@uni.example", "lms_user_id": "9", "name": "王 小明", "sortable_name": "王, 小明",
     "section": "+Section\nB"},
]
SCORES = {  # (student, assignment) → (score, late penalty); missing: not submitted
    ("ana@uni.example", "01_requires_grad"): (10, 0),
    ("ana@uni.example", "03_zeroing_grad"): (17.5, 0),
    ("bo@uni.example", "01_requires_grad"): (4, 0),
    ("wang@uni.example", "03_zeroing_grad"): (20, 5),
}
MAX = {"01_requires_grad": 10, "03_zeroing_grad": 20}


def final(student: str, assignment: str) -> float:
    score, penalty = SCORES.get((student, assignment), (0, 0))
    return max(0.0, score - penalty)


@pytest.fixture(scope="module")
def made(tmp_path_factory, new_gradebook):
    """A course folder whose gradebook has two assignments (a due date each, lesson 3 later) and
    four students: three the LMS knows, and mallory, whom no roster names; made once, copied."""
    folder = tmp_path_factory.mktemp("lms_course")
    (folder / "nbgrader_config.py").write_text("c = get_config()\n")
    db = new_gradebook(folder / "gradebook.db")
    with Gradebook(db) as gb:
        for name, due in (("03_zeroing_grad", "2030-03-01 12:00:00"), ("01_requires_grad", "2030-01-01 12:00:00")):
            gb.add_assignment(name, duedate=due)
            gb.add_notebook(name, name)
            gb.add_grade_cell("tests", name, name, max_score=MAX[name], cell_type="code")
        for user in LMS_USERS:
            gb.add_student(user["student_id"])
        gb.add_student("mallory")
        gb.add_submission("01_requires_grad", "mallory")
        gb.find_grade("tests", "01_requires_grad", "01_requires_grad", "mallory").auto_score = 3
        for (student, assignment), (score, penalty) in SCORES.items():
            submission = gb.add_submission(assignment, student)
            gb.find_grade("tests", assignment, assignment, student).auto_score = score
            for notebook in submission.notebooks:
                notebook.late_submission_penalty = penalty
        gb.db.commit()
    for user in LMS_USERS:
        roster.record(folder / "roster.csv", user)
    return folder


@pytest.fixture
def course(tmp_path, made):
    shutil.copytree(made, tmp_path, dirs_exist_ok=True)
    return tmp_path


def export(course, *args) -> int:
    return cli.main(["export", "--course", str(course), *args])


def read_csv(path) -> list:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def no_formula(rows: list) -> None:
    for row in rows:
        for field in row:
            assert field[:1] not in FORMULA_FIRST or NUMBER.fullmatch(field.strip()), field


def text(field: str) -> str:
    """A text field as a spreadsheet shows it (a leading ' marks text)."""
    return field[1:] if field.startswith("'") else field


# ----------------------------------------------------------------- Canvas, read as Canvas does

def canvas_import(path) -> tuple:
    """(points possible by assignment column, {canvas user: {column: score}}, column → Canvas
    assignment id or None), as Canvas's import reads the file: the identifying columns by name,
    every other column an assignment, the student found by ID, else SIS User ID, else SIS Login ID."""
    header, *rows = read_csv(path)
    identifying = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert header[:5] == identifying
    assignments = header[5:]
    ids = {}
    for column in assignments:
        found = re.fullmatch(r"(.*) \((\d+)\)", column)
        ids[found.group(1) if found else column] = found.group(2) if found else None
    names = list(ids)
    by = {key: {u[column]: u["student_id"] for u in LMS_USERS if u[column]}
          for key, column in (("ID", "canvas_user_id"), ("SIS User ID", "sis_user_id"), ("SIS Login ID", "login_id"))}
    points, students = {}, {}
    for row in rows:
        assert len(row) == len(header), row
        record = dict(zip(header, row))
        if record["Student"].strip() == "Points Possible":
            points = {name: float(record[column]) for name, column in zip(names, assignments)}
            continue
        user = next(by[key][record[key]] for key in ("ID", "SIS User ID", "SIS Login ID")
                    if record[key] and record[key] in by[key])
        assert user not in students
        students[user] = {name: float(record[column]) for name, column in zip(names, assignments)}
        students[user]["Student"] = text(record["Student"])
        students[user]["Section"] = text(record["Section"])
    return points, students, ids


def test_canvas_reads_every_students_scores_under_its_own_ids(course, capsys):
    assert export(course, "--roster", str(course / "roster.csv"), "--canvas-assignment", "03_zeroing_grad=5512") == 0
    points, students, ids = canvas_import(course / "grades_canvas.csv")
    # assignments in due-date order; lesson 3 goes to Canvas's assignment 5512, lesson 1 is new
    assert ids == {"01_requires_grad": None, "03_zeroing_grad": "5512"}
    assert points == {"01_requires_grad": 10.0, "03_zeroing_grad": 20.0}
    assert set(students) == {u["student_id"] for u in LMS_USERS}
    for student, scores in students.items():
        for assignment in MAX:
            assert scores[assignment] == final(student, assignment), (student, assignment)
    assert students["bo@uni.example"]["Student"] == LMS_USERS[1]["sortable_name"]
    assert students["wang@uni.example"]["Section"] == "+Section\nB"
    no_formula(read_csv(course / "grades_canvas.csv"))
    said = capsys.readouterr().out
    assert "Canvas: " in said and "(3 students)" in said
    assert "1 student left out" in said and "mallory" in said  # no roster row: no identifier Canvas reads


def test_moodle_finds_each_student_by_the_column_the_instructor_maps(course):
    assert export(course, "--roster", str(course / "roster.csv"), "--lms", "moodle") == 0
    assert not (course / "grades_canvas.csv").exists()
    header, *rows = read_csv(course / "grades_moodle.csv")
    assert header == ["First name", "Last name", "Email address", "Username", "ID number", "User ID",
                      "01_requires_grad", "03_zeroing_grad"]
    no_formula([header, *rows])
    for identify_by, field in (("Email address", "email"), ("Username", "login_id"), ("User ID", "lms_user_id")):
        users = {u[field]: u["student_id"] for u in LMS_USERS}
        seen = {}
        for row in rows:
            record = dict(zip(header, row))
            seen[users[record[identify_by]]] = {a: float(record[a]) for a in MAX}
        assert seen == {u["student_id"]: {a: final(u["student_id"], a) for a in MAX} for u in LMS_USERS}
    names = {tuple(text(f) for f in row[:2]) for row in rows}
    assert ("小明", "王") in names and ("Ana", "Pérez") in names
    assert ('"Bo", Jr.', '=HYPERLINK("http://x.example","Bo")') in names


def test_nbgrader_csv_is_written_beside_them(course):
    assert export(course, "--roster", str(course / "roster.csv")) == 0
    header, *rows = read_csv(course / "grades.csv")
    assert header[:4] == ["assignment", "duedate", "timestamp", "student_id"]
    assert len(rows) == 2 * 4  # every student, every assignment
    scores = {(r[3], r[0]): float(r[header.index("score")]) for r in rows}
    assert scores[("wang@uni.example", "03_zeroing_grad")] == 15.0 and scores[("mallory", "03_zeroing_grad")] == 0.0


def test_without_a_roster_the_ids_themselves_identify_students(course, capsys):
    """``--id-is email``: the student ids are e-mail addresses (the hub's default claim); mallory's
    is no e-mail address, but Moodle's import is told it is: the instructor's word."""
    assert export(course, "--id-is", "email", "--lms", "moodle", "--lms", "canvas") == 0
    header, *rows = read_csv(course / "grades_moodle.csv")
    emails = [dict(zip(header, r))["Email address"] for r in rows]
    assert sorted(emails) == sorted([u["email"] for u in LMS_USERS] + ["mallory"])
    # Canvas reads no e-mail address: with neither a roster nor its ids, nobody can be placed
    _, *canvas = read_csv(course / "grades_canvas.csv")
    assert [r[0] for r in canvas] == ["    Points Possible"]
    assert "Canvas: 4 students left out" in capsys.readouterr().out


def test_only_the_named_assignments(course):
    assert export(course, "--roster", str(course / "roster.csv"), "--assignment", "03_zeroing_grad") == 0
    points, students, _ = canvas_import(course / "grades_canvas.csv")
    assert list(points) == ["03_zeroing_grad"] and students["wang@uni.example"] == {
        "03_zeroing_grad": 15.0, "Student": "王, 小明", "Section": "+Section\nB"}


@pytest.mark.parametrize("args, words", [
    ([], "--roster FILE"),  # neither a roster nor --id-is: the LMS could place nobody
    (["--id-is", "email", "--canvas-assignment", "03_zeroing_grad=12a"], "is not ASSIGNMENT=ID"),
    (["--id-is", "email", "--canvas-assignment", "lesson9=12"], "is not ASSIGNMENT=ID"),
    (["--id-is", "email", "--assignment", "03_zeroing"], "Did you mean 03_zeroing_grad?"),
])
def test_a_request_that_cannot_be_exported_says_why_and_writes_nothing(course, capsys, args, words):
    assert export(course, *args) == 2
    assert words in capsys.readouterr().err
    assert not any((course / name).exists() for name in ("grades.csv", "grades_canvas.csv", "grades_moodle.csv"))


# -------------------------------------------------------------------------- the roster

def test_a_roster_with_a_column_it_does_not_know_is_refused_and_kept(course, capsys):
    """A misspelt column would leave every student without that identifier: refused, and the
    hub's next launch does not write over the file either."""
    path = course / "roster.csv"
    path.write_text("student_id,emial\nana@uni.example,ana@uni.example\n")
    assert export(course, "--roster", str(path)) == 2
    assert "needs a student_id column and no other" in capsys.readouterr().err and "emial" in path.read_text()
    with pytest.raises(roster.RosterError):
        roster.record(path, roster.from_claims("zoe@uni.example", {"email": "zoe@uni.example"}))
    assert path.read_text() == "student_id,emial\nana@uni.example,ana@uni.example\n"


def test_a_roster_behind_a_link_is_neither_read_nor_written(tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("student_id,email\nx,y\n")
    link = tmp_path / "roster.csv"
    link.symlink_to(secret)
    with pytest.raises(roster.RosterError):
        roster.read(link)
    with pytest.raises(roster.RosterError):
        roster.record(link, {"student_id": "z"})
    assert secret.read_text() == "student_id,email\nx,y\n" and link.is_symlink()


def test_a_launch_updates_its_students_row_and_keeps_the_others(tmp_path):
    path = tmp_path / "roster.csv"
    for user in LMS_USERS:
        roster.record(path, user)
    claims = {"email": "ana@uni.example", "sub": "7", "given_name": "Ana", "family_name": "Pérez Gil",
              "https://purl.imsglobal.org/spec/lti/claim/lis": {"person_sourcedid": "S-1"},
              "https://purl.imsglobal.org/spec/lti/claim/custom": {"canvas_user_id": 101, "login_id": "ana"}}
    roster.record(path, roster.from_claims("ana@uni.example", claims))
    rows = roster.read(path)
    assert rows["ana@uni.example"]["sortable_name"] == "Pérez Gil, Ana" and rows["ana@uni.example"]["name"] == "Ana Pérez Gil"
    assert rows["ana@uni.example"]["canvas_user_id"] == "101" and rows["ana@uni.example"]["last_launch"]
    assert rows["bo@uni.example"]["name"] == LMS_USERS[1]["name"]  # read back as the LMS sent it
    assert (path.stat().st_mode & 0o777) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["roster.csv"]  # no scratch file left
