"""The course on a real JupyterHub: an instructor and two students as separate Unix users,
every step in Chromium, as that user.

Set-up, as root, once a session (tests/hub_course.py; test_hub_lti.py launches students from
an LMS into the same hub): three Unix users with homes only they can enter and
random passwords (agl-teacher, agl-alice, agl-wang), nbgrader's exchange in its default place
(/usr/local/share/nbgrader/exchange), a copy of the course (lesson 3, the late policy 'zero')
in the instructor's home, and JupyterHub from tests/hub/jupyterhub_config.py: PAM, the local
spawner, configurable-http-proxy, each user's server on a host of its own (agl-alice.localhost);
students get the students' JupyterLab on their home, the instructor formgrader on the course
(lessons/lab.py's two views; formgrader shows in a frame, which JupyterHub forbids by default).

The cycle (a screenshot of each step in test-artifacts/hub-*.png):

instructor  adds lesson 3 in formgrader, generates the student version, writes each student's
            own variants of its questions (the course has a secret), releases it
students    log in and fetch it from the Assignment List; alice's notebook shows her own variant
            (found by her JupyterHub user name), and each answers their own variants
alice       English: submits before she has finished, then finishes (and runs a cell that
            lists the exchange, wang's home and the course folder), validates, submits again
wang        Chinese: puts the course's Chinese notebook in place of the fetched one, writes
            a loop that clears the gradients only once; Validate tells him so, in Chinese
instructor  sets the due date after alice's last submission; then wang submits, late
instructor  collects in formgrader, runs `autograder grade` in a terminal, releases feedback
students    fetch their feedback in the Assignment List and open it

Then: the grades and each student's feedback, in their language; every user's server ran as
that user; a student cannot reach another's submission or feedback, home or the course
folder (checked as that student, by Unix permissions); the grading sandbox sees nothing of
the exchange, the homes or the course. The fixtures remove the hub, the proxy, every user
with their home and processes, and the exchange folders they created, also after a failure.
"""
from __future__ import annotations

import datetime
import json
import re
import string
import textwrap
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from nbgrader.api import Gradebook
from nbgrader.utils import parse_utc

import catalogue
from browser_helpers import browser  # noqa: F401  (a fixture)
from helpers import ROOT, grade_id, points, read, solutions
from hub_helpers import (ARTIFACTS, COURSE_ID, EXCHANGE, add_assignment, add_cell_at_end, as_user,
                         assignment_list, assignment_row, close_dialog, fetch_in_page, formgrader,
                         formgrader_action, log_in, open_notebook, press_in_row, processes_of, run_cell,
                         run_in_terminal, save, set_due_date, start_validation, submissions, upload,
                         validation_report, wait_for_clock, wait_for_file, wait_for_lab, write_cell)
from hub_course import NAME, SECRET
from test_browser_instructor import nbgrader_menu
from test_class_grading import FULL_MARKS  # lesson 3's points in all (hub_course.NAME)

from autograder import titles
from autograder.judges import variants
from autograder.exercises.accumulation_predictions.judge import v_truth

pytestmark = [pytest.mark.slow, pytest.mark.browser]

CHINESE = ROOT / "release" / "zh" / NAME / f"{NAME}.ipynb"
RIGHT = solutions(read(ROOT / "source" / NAME / f"{NAME}.ipynb"))  # the published variants' answers
WRONG_LOOP = textwrap.dedent(next(e for e in catalogue.TRAIN_LOOP
                                  if e.name == "cleared_once_before_loop").source).strip()
WITHOUT_LOOP = FULL_MARKS - points(NAME)["train_loop_tests"]  # wang's score: every answer but the loop
LAST = "fit_line"  # the exercise alice has not written at her first submission
CJK = re.compile(r"[\u4e00-\u9fff]")


def words(key: str, lang: str) -> str:
    """The longest fixed part of the grader's message ``key`` in ``lang``."""
    from autograder import messages
    template = messages._GRADER.raw(key, lang)
    return max((literal for literal, *_ in string.Formatter().parse(template)), key=len).strip()


# ------------------------------------------------------------------------------ set-up

@pytest.fixture(scope="module")
def users(course_hub):
    """The instructor and the two students (``all``), as Unix users (tests/hub_course.py)."""
    return course_hub.users


def answers_of(student: str) -> dict:
    """Every answer right for ``student``'s own variants: the Quick Check letters, and the v
    half of exercise 3(a); the rest as in the source's solution."""
    keys = [variants.of_student(SECRET.encode(), f"l3_q{n}", student).key for n in range(1, 5)]
    v = v_truth(variants.of_student(SECRET.encode(), "l3_accumulation_predictions", student).shown())
    mine = ", ".join(v) + " = " + ", ".join(repr(v[name]) for name in v)
    predictions = re.sub(r"^v_grad_before, .*$", mine, RIGHT["accumulation_predictions"], flags=re.M)
    assert mine in predictions
    return dict(RIGHT, quick_check_answers="".join(f'answer_q{n} = "{k}"\n' for n, k in enumerate(keys, 1)),
                accumulation_predictions=predictions)


@pytest.fixture(scope="module")
def hub(course_hub):
    """JupyterHub and its proxy, for these users, with the exchange in its default place: the
    session's (tests/hub_course.py; test_hub_lti.py launches students from an LMS into it)."""
    return course_hub.hub


# ------------------------------------------------------------------------------ the cycle

def release(teacher, hub, students) -> str:
    """In formgrader: add lesson 3, generate the student version, write the students' variants
    beside it (``autograder variants``, as the instructor), release it."""
    add_assignment(teacher.page, NAME)
    frame = formgrader(teacher.page)
    formgrader_action(frame, NAME, "assign")
    wrote = as_user(teacher.user, [str(hub.bin / "autograder"), "variants", NAME, "--course", str(hub.course),
                                   *[arg for s in students for arg in ("--student", s.user.name)]])
    assert wrote.returncode == 0, wrote.stdout + wrote.stderr
    log = formgrader_action(frame, NAME, "release")
    teacher.shot("02-instructor-released")
    return log


def fetch(student) -> None:
    page = assignment_list(student.page)
    assignment_row(page, "released", NAME).wait_for(timeout=60_000)
    press_in_row(page, "released", NAME, "Fetch", "fetched")
    student.shot(f"03-{student.user.name}-fetched")


def write_answers(student, answers: dict) -> None:
    """Each answer typed into its cell of the student's notebook (found by grade id in the
    notebook on disk: the one the instructor generated, or the Chinese one put in its place)."""
    cells = {grade_id(c): i for i, c in enumerate(read(student.user.home / NAME / f"{NAME}.ipynb").cells)}
    for grade, code in answers.items():
        write_cell(student.page, cells[grade], code)


def submit(student, expected: int) -> list:
    """Save, then Submit in the Assignment List; the submissions it then lists."""
    page = student.page
    save(page)
    assignment_list(page)
    press_in_row(page, "fetched", NAME, "Submit", "submitted")
    shown = assignment_row(page, "submitted", NAME).locator(".nested_list_item")
    shown.nth(expected - 1).wait_for(timeout=60_000)
    return submissions(page, NAME)


def probe_cell(paths: list) -> str:
    """A cell that lists each of ``paths``, or says why it may not."""
    return textwrap.dedent(f"""\
        import os
        for path in {paths!r}:
            try:
                print(path, "lists", sorted(os.listdir(path)))
            except OSError as error:
                print(path, "refused:", type(error).__name__)""")


def grade_in_terminal(teacher, course: Path) -> tuple:
    """`autograder grade` typed in the instructor's terminal; its exit status and output."""
    home = teacher.user.home
    run_in_terminal(teacher.page, f"cd {course} && autograder grade {NAME} --jobs 2 2>&1 | tee ~/grade.log;"
                                  " echo ${PIPESTATUS[0]} > ~/grade.exit")
    status = wait_for_file(home / "grade.exit", timeout=600).strip()
    teacher.shot("11-instructor-autograder-grade")
    return status, (home / "grade.log").read_text()


def read_feedback(student) -> str:
    """Fetch Feedback in the Assignment List, follow "view feedback", open the page: its text."""
    page = assignment_list(student.page)
    row = assignment_row(page, "submitted", NAME)
    row.get_by_text("(feedback available to fetch)").wait_for(timeout=60_000)
    row.get_by_role("button", name="Fetch Feedback").click()
    link = assignment_row(page, "submitted", NAME).get_by_text("(view feedback)")
    link.wait_for(timeout=60_000)
    link.click()
    page.locator(".jp-DirListing-item", has_text=f"{NAME}.html").dblclick()
    body = page.frame_locator(".jp-HTMLViewer iframe").locator("body")
    body.locator("#toc").wait_for(timeout=60_000)  # the scores' list, in the notebook's language
    student.shot(f"13-{student.user.name}-feedback")
    return body.inner_text()


@pytest.fixture(scope="module")
def cycle(browser, hub, users):  # noqa: F811  (browser: a fixture)
    for stale in ARTIFACTS.glob("hub-*.png"):  # screenshots of an earlier run
        stale.unlink()
    sessions = [log_in(browser, hub, u) for u in (users.teacher, users.alice, users.wang)]
    try:
        return the_cycle(hub, users, *sessions)
    except Exception:
        for session in sessions:  # where each user was when it failed
            session.shot(f"failed-{session.user.name}")
        raise
    finally:  # what each user's pages reported as errors (formgrader's included)
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "hub-page-errors.txt").write_text("".join(
            f"{s.user.name}:\n" + "".join(f"  {error}\n" for error in s.errors) for s in sessions))


def the_cycle(hub, users, teacher, alice, wang) -> SimpleNamespace:
    record = SimpleNamespace()
    for session in (teacher, alice, wang):  # the hub starts the three servers at once
        wait_for_lab(session)
    # formgrader, in a frame of the instructor's JupyterLab, shows its page (not a blank frame)
    record.formgrader = formgrader(teacher.page).get_by_role("heading", name="Manage Assignments").inner_text()
    teacher.shot("01-instructor-formgrader")
    record.pages = {s.user.name: s.page.url for s in (teacher, alice, wang)}
    record.frame_policy = {s.user.name: fetch_in_page(s.page, f"{s.server}/lab")[1] for s in (teacher, alice, wang)}
    record.servers = {u.name: [Path(f"/proc/{pid}/cmdline").read_text() for pid in processes_of(u.entry.pw_uid)]
                      for u in users.all}

    record.release_log = release(teacher, hub, (alice, wang))
    for student in (alice, wang):
        fetch(student)
    record.fetched = {s.user.name: read(s.user.home / NAME / f"{NAME}.ipynb") for s in (alice, wang)}

    wang_works_in_chinese(wang)
    record.first = alice_submits_unfinished(alice)
    record.probed = [str(EXCHANGE), str(EXCHANGE / COURSE_ID / "inbound"), str(users.wang.home), str(hub.course)]
    record.her_question, record.probe_in_her_kernel = alice_finishes(alice, record.probed)
    record.validation = validate_both(alice, wang)
    record.second = submit(alice, 2)
    alice.shot("07-alice-submitted-twice")

    # the due date falls after alice's last submission and before wang's
    record.due = after(record.second)
    set_due_date(formgrader(teacher.page), NAME, record.due)
    teacher.shot("08-instructor-due-date")
    wait_for_clock(record.due)
    record.wang_submitted = submit(wang, 1)
    wang.shot("09-wang-submitted-late")

    record.collect_log = formgrader_action(formgrader(teacher.page), NAME, "collect")
    teacher.shot("10-instructor-collected")
    record.grade_status, record.grade_output = grade_in_terminal(teacher, hub.course)
    teacher.page.locator(".lm-TabBar-tab", has_text="Formgrader").click()
    record.feedback_log = formgrader_action(formgrader(teacher.page), NAME, "release-feedback")
    teacher.shot("12-instructor-released-feedback")

    record.feedback = {s.user.name: read_feedback(s) for s in (alice, wang)}
    record.tools = {s.user.name: instructor_tools(s) for s in (teacher, alice, wang)}
    return record


def wang_works_in_chinese(wang) -> None:
    """The course's Chinese notebook (release/zh/, as published) in place of the fetched one;
    every answer right but the loop, which clears the gradients only once."""
    upload(wang, NAME, CHINESE)
    open_notebook(wang, f"{NAME}/{NAME}.ipynb")
    write_answers(wang, dict(answers_of(wang.user.name), train_loop=WRONG_LOOP))
    wang.shot("04-wang-works-in-chinese")


def alice_submits_unfinished(alice) -> list:
    """Every answer but the last one, submitted; the submissions the Assignment List shows."""
    open_notebook(alice, f"{NAME}/{NAME}.ipynb", kernel=True)
    write_answers(alice, {k: v for k, v in answers_of(alice.user.name).items() if k != LAST})
    shown = submit(alice, 1)
    alice.shot("05-alice-first-submission")
    return shown


def alice_finishes(alice, paths: list) -> str:
    """The last answer, a cell that shows her question 2, and one that looks at ``paths``, run
    in her kernel: what the last two printed."""
    open_notebook(alice, f"{NAME}/{NAME}.ipynb", kernel=True)
    write_answers(alice, {LAST: RIGHT[LAST]})
    question = run_cell(alice.page, add_cell_at_end(alice.page, 'from lessons import quiz\nquiz.question("l3_q2")'))
    return question, run_cell(alice.page, add_cell_at_end(alice.page, probe_cell(paths)))


def validate_both(*students) -> dict:
    """Both press Validate, then read their reports: student → report."""
    for student in students:
        start_validation(student.page)
    reports = {}
    for student in students:
        reports[student.user.name] = validation_report(student.page)
        student.shot(f"06-{student.user.name}-validated")
        close_dialog(student.page)
    return reports


def after(shown: list) -> datetime.datetime:
    """The first whole second after the last of the submissions the Assignment List shows."""
    last = max(parse_utc(line.split(" (")[0]) for line in shown)
    return (last + datetime.timedelta(seconds=1)).replace(microsecond=0)


def instructor_tools(session) -> dict:
    """Whatever of the instructor's tools this user's JupyterLab and server offer (looked for
    once the application has long been restored, so nothing is missed by arriving early)."""
    page, found = session.page, {}
    if page.locator(".jp-SideBar.jp-mod-right").get_by_text("Create Assignment").count():
        found["Create Assignment panel"] = True
    menu = [item for item in nbgrader_menu(page) if item != "Assignment List"]
    if menu:
        found["menu"] = menu
    status, _ = fetch_in_page(page, f"{session.server}/formgrader")  # with the user's cookies
    if status != 404:
        found["/formgrader"] = status
    return found


# ------------------------------------------------------------------------------ the checks

ACCESS = r"""
import json, os, sys
seen = {}
for action, path in zip(sys.argv[1::2], sys.argv[2::2]):
    try:
        if action == "list":
            os.listdir(path)
        elif action == "read":
            open(path, "rb").read(1)
        else:  # "move": rename it and back
            os.rename(path, path + ".moved")
            os.rename(path + ".moved", path)
        seen[f"{action} {path}"] = "allowed"
    except OSError as error:
        seen[f"{action} {path}"] = type(error).__name__
print(json.dumps(seen))
"""


def attempts(hub, user, *tries) -> dict:
    """What ``user`` may do, tried as that user: {"list /path": "allowed" or the error}."""
    argv = [str(hub.bin / "python"), "-c", ACCESS] + [str(x) for pair in tries for x in pair]
    result = as_user(user, argv)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def due_date(course: Path) -> datetime.datetime:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return gb.find_assignment(NAME).duedate


def graded(course: Path) -> dict:
    """student → their submission in the gradebook (timestamp, lateness, scores)."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {s.student.id: SimpleNamespace(
                    timestamp=s.timestamp, late=s.total_seconds_late, penalty=s.late_submission_penalty,
                    score=s.score, max_score=s.max_score,
                    cells={g.name: g.score for nb in s.notebooks for g in nb.grades})
                for s in gb.find_assignment(NAME).submissions}


def inbound(student) -> list:
    """The student's submissions in the exchange, oldest first (read as root)."""
    folder = EXCHANGE / COURSE_ID / "inbound"
    return sorted((p for p in folder.iterdir() if p.name.startswith(f"{student.name}+")),
                  key=lambda p: p.name.split("+")[2])


def exchange_feedback(hub, student) -> Path:
    """The feedback page released to ``student``, found as root: the one with their score."""
    course_copy = (hub.course / "feedback" / student.name / NAME / f"{NAME}.html").read_bytes()
    return next(p for p in (EXCHANGE / COURSE_ID / "feedback").iterdir() if p.read_bytes() == course_copy)


def test_every_server_runs_as_its_user(cycle, users):
    for user in users.all:
        assert any("jupyterhub-singleuser" in cmdline for cmdline in cycle.servers[user.name]), user.name


def test_each_role_gets_its_own_jupyterlab(cycle, users):
    """Students: no instructor tool; the instructor: formgrader and the Create Assignment panel."""
    assert cycle.tools[users.alice.name] == {} and cycle.tools[users.wang.name] == {}
    teacher = cycle.tools[users.teacher.name]
    assert teacher.get("Create Assignment panel") and teacher.get("/formgrader") == 200, teacher
    assert {"Formgrader", "Create assignment"} <= set(teacher["menu"]), teacher


def test_formgrader_shows_in_the_instructors_jupyterlab_and_only_there(cycle, hub, users):
    """JupyterHub forbids every frame on a user's server; the instructor's configuration
    (lessons/lab.py) lets their own origin frame theirs, so formgrader is not blank. Each
    server has a host of its own, so no other user's page is of that origin; students'
    servers keep JupyterHub's policy."""
    assert cycle.formgrader == "Manage Assignments"
    assert cycle.frame_policy[users.teacher.name].split("; ")[0] == "frame-ancestors 'self'", cycle.frame_policy
    for student in (users.alice, users.wang):
        assert cycle.frame_policy[student.name] == "frame-ancestors 'none'", cycle.frame_policy
    hosts = {name: urlsplit(url).netloc for name, url in cycle.pages.items()}
    assert hosts == {u.name: urlsplit(hub.server(u)).netloc for u in users.all}, hosts
    assert len(set(hosts.values())) == 3 and urlsplit(hub.url).netloc not in hosts.values(), hosts
    # the extension runs in the instructor's server alone, and sees each user on a host of their own
    log = hub.log.read_text()
    assert log.count("lessons.lab: this server's pages may be framed by its own origin") == 1, log
    assert "serves every user's server from one origin" not in log


def test_the_instructor_released_lesson_3_from_formgrader(cycle, hub, users):
    assert "Released as: autograd-lessons 03_zeroing_grad" in cycle.release_log
    outbound = EXCHANGE / COURSE_ID / "outbound" / NAME
    assert outbound.stat().st_uid == users.teacher.entry.pw_uid
    released = read(hub.course / "release" / NAME / f"{NAME}.ipynb")
    for student in (users.alice, users.wang):
        fetched = cycle.fetched[student.name]
        assert [c.source for c in fetched.cells] == [c.source for c in released.cells], student.name


def test_each_student_got_their_own_variants_and_alices_notebook_shows_hers(cycle, hub, users):
    """The variants file came through nbgrader's exchange with the notebook; alice's kernel,
    under her JupyterHub user name, shows her own question 2, not wang's nor the published one."""
    for student in (users.alice, users.wang):
        assert (student.home / NAME / "variants.json").is_file(), student.name
    hers, his = (variants.of_student(SECRET.encode(), "l3_q2", u.name) for u in (users.alice, users.wang))
    published = variants.variant("l3_q2", None)
    assert hers.code != published.code or hers.order != published.order
    shown = cycle.her_question
    assert f"Your variant of this question: {hers.label}." in shown and hers.code.splitlines()[0] in shown
    assert f"{his.label}." not in shown and "was not found" not in shown


def test_alice_submitted_twice_and_her_second_submission_is_graded(cycle, hub, users):
    assert len(cycle.first) == 1 and len(cycle.second) == 2
    first, second = inbound(users.alice)
    assert all(p.stat().st_uid == users.alice.entry.pw_uid for p in (first, second))
    alice = graded(hub.course)[users.alice.name]
    assert alice.timestamp == parse_utc((second / "timestamp.txt").read_text())
    assert alice.timestamp < cycle.due and alice.late == 0 and not alice.penalty
    assert (alice.score, alice.max_score) == (FULL_MARKS, FULL_MARKS)


def test_the_instructor_set_the_due_date_in_formgrader(cycle, hub):
    assert due_date(hub.course) == cycle.due


def test_wang_submitted_late_and_the_late_policy_applies(cycle, hub, users):
    assert len(cycle.wang_submitted) == 1
    [submission] = inbound(users.wang)
    wang = graded(hub.course)[users.wang.name]
    assert wang.timestamp == parse_utc((submission / "timestamp.txt").read_text()) > cycle.due
    assert wang.late > 0
    assert wang.cells["train_loop_tests"] == 0 and sum(wang.cells.values()) == WITHOUT_LOOP
    assert wang.penalty == WITHOUT_LOOP  # 'zero': the penalty is the score


def test_validate_answers_each_student_in_their_language(cycle, users):
    assert "Success! Your notebook passes all the tests." in cycle.validation[users.alice.name]
    # the dialog shows the message as the kernel printed it: broken into lines of 88 columns
    # (between words, and between Chinese characters), so it is compared without its spaces
    wang = re.sub(r"\s", "", cycle.validation[users.wang.name])
    assert re.sub(r"\s", "", words("loop.cleared_once", "zh")) in wang and "第7行" in wang, wang


def test_the_instructor_collected_and_released_feedback_in_formgrader(cycle, users):
    for student in (users.alice, users.wang):
        assert f"Collecting submission: {student.name} {NAME}" in cycle.collect_log, cycle.collect_log
        assert f"Releasing feedback for student '{student.name}'" in cycle.feedback_log, cycle.feedback_log


def test_autograder_grade_ran_in_the_instructors_terminal(cycle, hub, users):
    assert cycle.grade_status == "0", cycle.grade_output
    assert "2 submissions graded" in cycle.grade_output, cycle.grade_output
    assert not re.search(r"\([1-9]\d* could not be graded", cycle.grade_output), cycle.grade_output
    log = hub.course / "autograder-logs" / NAME / "servers.log"
    assert log.stat().st_uid == users.teacher.entry.pw_uid


def test_each_student_reads_their_own_feedback_in_their_language(cycle, users):
    alice, wang = cycle.feedback[users.alice.name], cycle.feedback[users.wang.name]
    assert f"{NAME} (Score: {FULL_MARKS:.1f} / {FULL_MARKS:.1f})" in alice
    assert words("general.passed", "en") in alice
    assert words("loop.cleared_once", "zh") in wang and "第 7 行" in wang
    # nbgrader's own words on the page too (the course's feedback template, autograder/locale/zh.toml)
    assert f"迟交扣分（得分：-{WITHOUT_LOOP:.1f}）" in wang and f"{NAME}（得分：0.0/{FULL_MARKS:.1f}）" in wang
    assert "测试单元格（得分：0.0/4.0）" in wang and "学生的答案" in wang and "（返回顶部）" in wang
    exercise_b = titles.text(titles.test_cell("train_loop_tests"), "zh")  # as its heading says: 练习 (b)
    assert re.search(r"评分单元格：\s*" + re.escape(exercise_b), wang) and re.search(r"输入\s\[\d+\]:", wang)
    english = ["Score", "Test cell", "Student's answer", "(Top)", "Grade cell", "Late submission"]
    assert [word for word in english if word in wang] == [] and not re.search(r"\bIn\s\[", wang)
    assert words("loop.cleared_once", "en") not in wang
    assert not CJK.search(alice) and f"(Score: {FULL_MARKS:.1f} / {FULL_MARKS:.1f})" not in wang


def test_students_cannot_reach_each_others_work(cycle, hub, users):
    """As each student, with their own Unix rights: another student's submission and feedback
    in the exchange, in their home and in the course folder."""
    exchange = EXCHANGE / COURSE_ID
    for reader, other in ((users.wang, users.alice), (users.alice, users.wang)):
        home_feedback = next((other.home / NAME / "feedback").iterdir()) / f"{NAME}.html"
        denied = attempts(hub, reader,
                          ("list", exchange / "inbound"), ("list", exchange / "feedback"),
                          ("list", other.home), ("read", other.home / NAME / f"{NAME}.ipynb"),
                          ("read", home_feedback),
                          ("list", hub.course), ("read", hub.course / "gradebook.db"),
                          ("read", hub.course / "submitted" / other.name / NAME / f"{NAME}.ipynb"),
                          ("read", hub.course / "feedback" / other.name / NAME / f"{NAME}.html"),
                          ("move", exchange))
        assert set(denied.values()) == {"PermissionError"}, denied
        # nbgrader keeps these apart by name: each submission's folder ends in 12 random
        # characters, each released feedback is named by a hash with the submission's secret,
        # and neither folder can be listed; with the exact name, its files (0644) can be read
        submission = inbound(other)[-1]
        assert re.fullmatch(rf"{other.name}\+{NAME}\+[^+]+\+[A-Za-z0-9_-]{{12}}", submission.name)
        by_name = attempts(hub, reader, ("read", submission / f"{NAME}.ipynb"),
                           ("read", exchange_feedback(hub, other)))
        assert set(by_name.values()) == {"allowed"}, by_name


def test_the_grading_sandbox_sees_nothing_of_the_exchange(cycle, hub, users):
    """alice's last cell lists the exchange, wang's home and the course: her own kernel lists
    the exchange (and is refused the rest); the kernel that graded her is refused everything."""
    hers = dict(line.split(" ", 1) for line in cycle.probe_in_her_kernel.splitlines())
    assert hers[str(EXCHANGE)].startswith("lists") and COURSE_ID in hers[str(EXCHANGE)]
    autograded = read(hub.course / "autograded" / users.alice.name / NAME / f"{NAME}.ipynb")
    probe = next(c for c in autograded.cells if c.cell_type == "code" and "os.listdir" in c.source)
    text = "".join(o.get("text", "") for o in probe.outputs)
    graded_lines = dict(line.split(" ", 1) for line in text.splitlines())
    assert set(graded_lines) == set(cycle.probed), text
    assert all(seen.startswith("refused:") for seen in graded_lines.values()), text
