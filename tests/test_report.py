"""The class report from a made-up course (a gradebook, autograded notebooks with verdicts,
feedback pages, a failed submission's log): the numbers, the mistakes in words, who made
them, the links, the course page; and a hostile student id and message that stay text."""
from __future__ import annotations

import html.parser
import json
import re
import shutil
from urllib.parse import unquote

import pytest
from helpers import ROOT
from nbgrader.api import Gradebook

from autograder.instructor import cli
from autograder.instructor import failures
from autograder.instructor.course_config import course_config
from autograder.instructor.reports import pages as report

pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # nbgrader's, while making the course

L3, L1 = "03_zeroing_grad", "01_requires_grad"
HOSTILE = '<img src=x onerror=alert(1)>'  # a folder name nbgrader accepts as a student id
SCRIPT = "optimizer.step()  # </q></td><script>alert(2)</script>"
CELLS = {L3: [("train_loop_tests", 3), ("quiz_q1", 1)], L1: [("freeze_body_tests", 2)]}


def where(line, code):
    return {"$key": "general.where", "fields": {"line": line, "code": code}}


def cleared_once(code="optimizer.step()"):
    return {"ok": False, "mistake": "cleared_once", "key": "loop.cleared_once",
            "fields": {"step": 2, "where": where(7, code), "used": "batches 1 + 2", "expected": "batch 2",
                       "backward_where": where(6, "loss.backward()")}}


WRONG_QUIZ = {"ok": False, "mistake": "wrong_choice", "key": "quiz.wrong",
              "fields": {"question": 1, "title": "Question 1", "got": "b"}}
# student → assignment → (score of each cell, verdict of each failed cell)
CLASS = {
    "alice": {L3: ({"train_loop_tests": 3, "quiz_q1": 1}, {}), L1: ({"freeze_body_tests": 2}, {})},
    "bob": {L3: ({"train_loop_tests": 0, "quiz_q1": 0}, {"train_loop_tests": cleared_once(), "quiz_q1": WRONG_QUIZ}),
            L1: ({"freeze_body_tests": 2}, {})},
    HOSTILE: {L3: ({"train_loop_tests": 0, "quiz_q1": 0},
                   {"train_loop_tests": cleared_once(SCRIPT),  # its message is longer than bob's: not the example
                    "quiz_q1": {"ok": False, "mistake": "unanswered", "key": "quiz.unanswered",  # the only one
                                "fields": {"question": 1, "title": "Question 1", "choices": "a, b",
                                           "got": "<script>alert(3)</script>"}}})},
    "carol": {L3: ({"train_loop_tests": 0, "quiz_q1": 1},
                   {"train_loop_tests": {"ok": False, "mistake": "cleared_once", "key": "no.such.key", "fields": []}}),
              L1: ({"freeze_body_tests": 0}, {"freeze_body_tests": "error"})},
    "dave": {L3: ({"train_loop_tests": 0, "quiz_q1": 0}, "not_json")},  # could not be graded
    "erin": {L1: ({"freeze_body_tests": 2}, {})},  # never submitted lesson 3
}


@pytest.fixture(scope="module")
def gradebook(tmp_path_factory):
    """The gradebook of the class above (made once: nbgrader runs alembic in a subprocess)."""
    path = tmp_path_factory.mktemp("gb") / "gradebook.db"
    with Gradebook(f"sqlite:///{path}", "autograd-lessons") as gb:
        for assignment, cells in CELLS.items():
            gb.add_assignment(assignment)
            gb.add_notebook(assignment, assignment)
            for name, points in cells:
                gb.add_grade_cell(name, assignment, assignment, max_score=points, cell_type="code")
        for student, work in CLASS.items():
            gb.add_student(student, first_name="Ada" if student == "alice" else None)
            for assignment, (scores, _) in work.items():
                submission = gb.add_submission(assignment, student)
                for grade_ in submission.notebooks[0].grades:
                    grade_.auto_score = scores[grade_.name]
                gb.db.commit()
    return path


def autograded(assignment: str, scores: dict, verdicts: dict) -> dict:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "hello"}]
    for name, _ in CELLS[assignment]:
        meta = {"nbgrader": {"grade": True, "grade_id": name, "points": 1, "solution": False}}
        outputs = []
        if verdicts.get(name) == "error":
            outputs = [{"output_type": "error", "ename": "CellTimeoutError", "evalue": "A cell timed out", "traceback": []}]
        elif name in verdicts:
            meta["autograder"] = {"verdict": verdicts[name]}
        elif scores[name]:
            meta["autograder"] = {"verdict": {"ok": True, "mistake": "", "key": "", "fields": {}}}
        cells.append({"cell_type": "code", "metadata": meta, "source": "check()", "outputs": outputs,
                      "execution_count": 1})
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture
def course(tmp_path, gradebook):
    root = tmp_path / "course"
    root.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copy(gradebook, root / "gradebook.db")
    for assignment in (L1, "02_backward", L3):
        shutil.copytree(ROOT / "source" / assignment, root / "source" / assignment)
    for student, work in CLASS.items():
        for assignment, (scores, verdicts) in work.items():
            feedback = root / "feedback" / student / assignment
            feedback.mkdir(parents=True)
            (feedback / f"{assignment}.html").write_text("<p>feedback</p>")
            if verdicts == "not_json":
                failures.keep_log(root, assignment, student, {"log": "NotJSONError"}, "not_json")
                continue
            folder = root / "autograded" / student / assignment
            folder.mkdir(parents=True)
            (folder / f"{assignment}.ipynb").write_text(json.dumps(autograded(assignment, scores, verdicts)))
    return root


def write(root) -> dict:
    config = course_config(root, f"sqlite:///{root / 'gradebook.db'}")
    pages = report.write_all(root, config)
    return {path.name: path.read_text() for path in pages}


class Tags(html.parser.HTMLParser):
    """Every tag and attribute of a page, and its text."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.attrs, self.text, self.hrefs = [], [], [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [name for name, _ in attrs]
        self.hrefs += [value for name, value in attrs if name == "href"]

    def handle_data(self, data):
        self.text.append(data)


def section(page: str, grade_id: str) -> str:
    """The text of an exercise's section of an assignment page."""
    start = re.search(f'<section class="exercise-block" id="ex\\d+"><h3><code>{grade_id}</code>', page).start()
    return page[start:page.index("</section>", start)]


def test_the_assignment_page(course):
    page = write(course)[f"{L3}.html"]
    text = " ".join(" ".join(Tags(page).text).split())
    assert "Submitted: 5 of 6 students (1 did not). Could not be graded: 1." in text
    loop = section(page, "train_loop_tests")
    assert "cleared the gradients only once, before the loop" in loop  # the mistake's name in words
    row = re.search(r"cleared the gradients only once.*?</tr>", loop, re.S).group(0)
    assert '<td class="num">3</td>' in row  # bob, carol, the hostile student
    assert '<a href="../feedback/bob/03_zeroing_grad/03_zeroing_grad.html">bob</a>' in row
    # the shortest message of the three, as a student reads it
    assert "Gradients were cleared only once, before the loop. Step 1 was right, but step 2 (line 7: " \
           "`optimizer.step()`) used batches 1 + 2 instead of batch 2 alone" in loop
    assert "Students per score, train_loop_tests (of 3 points): 3 scored 0; 1 scored 3; nobody scored anything else." in loop
    quiz = section(page, "quiz_q1")
    assert "wrong Quick Check answer" in quiz and "cleared" not in quiz
    assert "Question 1: \"b\" is not the best answer." in html.unescape(quiz)
    # dave: not graded, and why, with the log
    failed = page[page.index("could not be graded</h2>"):page.index("Exercises and their mistakes")]
    assert "dave" in failed and "the file is not a notebook (not JSON)" in failed
    assert 'href="../autograder-logs/03_zeroing_grad/students/dave.log"' in failed
    assert "dave" not in loop  # his notebook was never run: no mistakes of his
    assert "erin" in page and "not submitted" in page
    assert "Mean 1, median 0, of 4 points" in text  # 4, 0, 0, 1 and dave's 0
    assert "Students per score, total score of 03_zeroing_grad (of 4 points): 3 scored 0; 1 scored 1; " \
           "1 scored 4; nobody scored anything else." in text
    common = page[page.index("Most common mistakes"):page.index("could not be graded</h2>")]
    assert re.findall(r"<tr><td>(.*?)</td><td><a href=\"#(ex\d)\"><code>(\w+)</code></a></td><td class=\"num\">(\d)</td>",
                      common) == [("cleared the gradients only once, before the loop", "ex1", "train_loop_tests", "3"),
                                  ("no answer", "ex0", "quiz_q1", "1"),
                                  ("wrong Quick Check answer", "ex0", "quiz_q1", "1")]
    assert "alice (Ada)" in text


def test_common_mistakes_count_each_student_once(course):
    """bob gives the same wrong answer in two exercises: one student, both exercises named."""
    notebook = course / "autograded" / "bob" / L3 / f"{L3}.ipynb"
    nb = json.loads(notebook.read_text())
    nb["cells"][1]["metadata"]["autograder"] = {"verdict": WRONG_QUIZ}  # train_loop_tests, same mistake id
    notebook.write_text(json.dumps(nb))
    page = write(course)[f"{L3}.html"]
    common = page[page.index("Most common mistakes"):page.index("could not be graded</h2>")]
    row = re.search(r"<tr><td>wrong Quick Check answer</td>.*?</tr>", common).group(0)
    assert row.count("<a href=") == 2 and row.endswith('<td class="num">1</td></tr>')


def test_the_course_page(course):
    page = write(course)["course.html"]
    text = " ".join(" ".join(Tags(page).text).split())
    assert "The hardest lesson so far is 03_zeroing_grad (mean score 25%)." in text  # (4+0+0+1+0)/5 of 4
    assert "Mean score per lesson, as a share of its points: 01_requires_grad 75%; 03_zeroing_grad 25%." in text
    # an exercise's numbers leave out dave's submission, which was never run
    assert "03_zeroing_grad 5 / 6 25% train_loop_tests (25%)" in text
    assert "02_backward not graded yet" in text
    rows = {row[0]: row for row in re.findall(r"<tr><td>([^<]*)</td>(.*?)</tr>", page)}
    assert "03_zeroing_grad not submitted" in " ".join(Tags(rows["erin"][1]).text)
    assert "01_requires_grad could not be graded" not in page
    assert "03_zeroing_grad could not be graded" in rows["dave"][1]
    assert "01_requires_grad not submitted" in rows["dave"][1]
    assert "alice" in rows and "warn" not in rows["alice"][1]  # 6 of 6: not behind
    order = [name for name in re.findall(r"<tr><td>([^<]*)</td>", page) if name in {"alice", "bob", "erin", "dave"}]
    assert order.index("alice") == len(order) - 1  # those behind first


def test_student_text_never_becomes_html(course):
    for name, page in write(course).items():
        tags = Tags(page)
        assert "script" not in tags.tags and "img" not in tags.tags, name
        assert not [a for a in tags.attrs if a.startswith("on")], name
        assert "<script>" not in page and "<img " not in page
    page = write(course)[f"{L3}.html"]
    assert HOSTILE in " ".join(Tags(page).text)  # shown, as text
    assert "it is &lt;script&gt;alert(3)&lt;/script&gt;)" in section(page, "quiz_q1")  # its message too
    assert "href=\"../feedback/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E/03_zeroing_grad/03_zeroing_grad.html\"" in page
    assert "default-src 'none'" in page  # and if escaping ever failed, nothing would load or run


def test_every_link_leads_to_a_file(course):
    pages = write(course)
    checked = 0
    for name, page in pages.items():
        for href in Tags(page).hrefs:
            if href.startswith("#"):
                assert f'id="{href[1:]}"' in page
                continue
            target = (course / "reports" / unquote(href)).resolve()
            assert target.is_file(), (name, href)
            assert course in target.parents
            checked += 1
    assert checked >= 15


def test_plots_have_a_text_alternative(course):
    page = write(course)[f"{L3}.html"]
    figures = re.findall(r"<figure.*?</figure>", page, re.S)
    assert len(figures) == 3  # the total and the two exercises
    for figure in figures:
        ident = re.search(r'aria-labelledby="([^ "]+)-title \1-caption"', figure).group(1)
        assert f'<title id="{ident}-title">' in figure and f'<figcaption id="{ident}-caption">' in figure
        assert re.search(r"\d+ scored \d", figure.split("<figcaption")[1])


def test_a_broken_autograded_notebook_is_skipped(course):
    (course / "autograded" / "bob" / L3 / f"{L3}.ipynb").write_text("{not json")
    (course / "autograded" / "alice" / L3 / f"{L3}.ipynb").write_text('{"cells": [5, {"metadata": 7}]}')
    page = write(course)[f"{L3}.html"]
    row = re.search(r"cleared the gradients only once.*?</tr>", section(page, "train_loop_tests"), re.S).group(0)
    assert '<td class="num">2</td>' in row and ">bob<" not in row


def test_a_malformed_verdict_is_named_without_its_message(course):
    """carol's verdict names no message the grader has: the generic one is her example."""
    shutil.rmtree(course / "autograded" / "bob")
    shutil.rmtree(course / "autograded" / HOSTILE)
    loop = section(write(course)[f"{L3}.html"], "train_loop_tests")
    assert "The grader could not read what your code produced for this check" in loop


def test_logs_say_who_could_not_be_graded_now(course):
    assert failures.recorded(course, L3) == {"dave": "not_json"}
    failures.forget_log(course, L3, "dave")  # graded normally since
    assert failures.recorded(course, L3) == {}
    legacy = failures.log_path(course, L3, "old")
    legacy.write_text("[AutogradeApp | ERROR] NotJSONError: Notebook does not appear to be JSON")
    assert failures.recorded(course, L3) == {"old": "not_json"}


def test_autograder_report_writes_them_again(course, capsys, monkeypatch):
    monkeypatch.chdir(course)
    monkeypatch.setenv("NBGRADER_DB_URL", f"sqlite:///{course / 'gradebook.db'}")
    assert cli.main(["report", L3]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"class report: {course / 'reports' / f'{L3}.html'}",
                   f"class report: {course / 'reports' / 'course.html'}"]
    assert not (course / "reports" / f"{L1}.html").exists()
    assert cli.main(["report"]) == 0
    assert (course / "reports" / f"{L1}.html").is_file()


def test_a_report_folder_that_cannot_be_written(course, capsys, monkeypatch):
    import os

    if os.geteuid() == 0:  # root writes anywhere: make "reports" a file instead
        (course / "reports").write_text("in the way")
    else:
        (course / "reports").mkdir(mode=0o500)
    monkeypatch.chdir(course)
    monkeypatch.setenv("NBGRADER_DB_URL", f"sqlite:///{course / 'gradebook.db'}")
    assert cli.main(["report"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"autograder: The class report cannot be written into {course / 'reports'} (")
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def forged(**fields):
    return {"ok": False, "mistake": "cleared_once", "key": "loop.cleared_once", "fields": fields}


def nested_message(levels):
    value = "x"
    for _ in range(levels):
        value = {"$key": "loop.list_holding", "fields": {"type": value}}
    return value


# verdicts no template can take, as a forged report would leave them (the judge refuses them now;
# a notebook graded before, or edited since, may still hold them)
FORGED = {
    "f_huge_count": {"ok": False, "mistake": "step_count", "key": "loop.step_count",
                     "fields": {"got": 10 ** 400, "count": 10 ** 400, "batches": 4, "expected": 4, "where": "w",
                                "rule": {"$key": "loop.rule_batch"}}},
    "f_huge_float": {"ok": False, "mistake": "losses_values", "key": "loop.losses_values",
                     "fields": {"batch": 1, "got": 10 ** 400, "expected": 1.0}},
    "f_nan": forged(step=float("nan"), where="w", used="u", expected="e", backward_where="b"),
    "f_nested": forged(step=2, where=nested_message(200), used="u", expected="e", backward_where="b"),
    "f_giant": forged(step=2, where="x" * 2_000_000, used="u", expected="e", backward_where="b"),
    "f_format": forged(step="{0:>999999999}", where="{where:>99999999}", used="u", expected="e", backward_where="b"),
    "f_other_key": {"ok": False, "mistake": "cleared_once", "key": "cli.bad_secret", "fields": {"reason": 10 ** 400}},
    "f_fields_list": {"ok": False, "mistake": "cleared_once", "key": "loop.cleared_once", "fields": [10 ** 400]},
}


def test_one_students_data_costs_only_their_row(course, capsys, monkeypatch):
    """Forged verdicts of every class (a number past a float's range in a plural and in a
    ``:.6g``, NaN for a step, messages nested 200 deep, 2 MB of text, format specs as values,
    another section's message, fields that are a list) and a notebook nested too deep for
    Python's JSON reader: `autograder report` writes the pages, each forger is counted under
    the mistake it names with no message of theirs as the example, the others' examples and
    rows are as before, and the unreadable student's row says so."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "autograd-lessons") as gb:
        for student in [*FORGED, "f_deep"]:
            gb.add_student(student)
            submission = gb.add_submission(L3, student)
            for grade_ in submission.notebooks[0].grades:
                grade_.auto_score = 0
            gb.db.commit()
    for student, verdict in FORGED.items():
        folder = course / "autograded" / student / L3
        folder.mkdir(parents=True)
        nb = autograded(L3, {"train_loop_tests": 0, "quiz_q1": 1}, {"train_loop_tests": verdict})
        (folder / f"{L3}.ipynb").write_text(json.dumps(nb))
    folder = course / "autograded" / "f_deep" / L3
    folder.mkdir(parents=True)
    (folder / f"{L3}.ipynb").write_text('{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}")

    monkeypatch.chdir(course)
    monkeypatch.setenv("NBGRADER_DB_URL", f"sqlite:///{course / 'gradebook.db'}")
    assert cli.main(["report", L3]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "Traceback" not in out
    page = (course / "reports" / f"{L3}.html").read_text()
    assert len(page) < 200_000 and "xxxxxxxxxx" not in page and "999999" not in page
    loop = section(page, "train_loop_tests")
    assert "Gradients were cleared only once, before the loop. Step 1 was right, but step 2 (line 7: " \
           "`optimizer.step()`) used batches 1 + 2 instead of batch 2 alone" in loop  # bob's, still the example
    for student in FORGED:
        assert re.search(f"(>|, ){student}(<|,)", loop), student  # counted, under the mistake their verdict names
    assert "wrong number of optimizer steps" in loop and "returned each loss at the wrong moment" in loop
    row = re.search(r"<tr><td>f_deep <span class=\"warn\">\(the report could not read all of this student's data "
                    r"\(RecursionError: [^<]*\)[^<]*\)</span></td>", html.unescape(page))
    assert row, page[page.index("Every student"):][:3000]
    assert '<tr><td>bob</td><td class="num">0</td>' in page and "alice <span" in page
