"""The class report: one self-contained HTML page per assignment, and one for the course.

An assignment's page (``reports/<assignment>.html`` in the course folder) shows the
distribution of the total scores and of each exercise's scores (inline SVG bar charts, each
with a caption that states its numbers), each exercise's mistakes named in words as the
class summary names them (``[mistakes]`` in the locale files) with how many students made
each, who, and one student's message as the grader worded it, the submissions that could not
be graded and why (their logs in ``autograder-logs/``), and every student's score with a link
to their feedback page. The course page (``reports/course.html``) puts the lessons side by
side: each student's score per lesson, who is behind, and which lesson and exercise are
hardest. Scores come from the gradebook (nbgrader's ``Gradebook``), mistakes from the
verdicts ``ApplyVerdicts`` keeps in the autograded notebooks. ``autograder grade`` writes
both pages; ``autograder report`` writes them again without grading. A page needs no
network: inline CSS, no script, a Content-Security-Policy that forbids loading anything. The
HTML is in Jinja templates (``templates/``) with autoescaping: every value a page shows is
escaped where it is printed (students' names, ids, messages quoting their code), with no
escaping helper to forget.
"""
from __future__ import annotations

import datetime
import functools
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from ... import messages
from .. import failures, preflight
from ..printable import printable
from . import summary
from .summary import mistake_name

FOLDER = "reports"
COURSE_PAGE = "course.html"
BEHIND = 0.5  # below this share of the points so far (or a lesson missing), a student is behind
EXAMPLE_CHARS = 600  # an example message is cut here
HARDEST = 5  # exercises listed as the course's hardest
COMMON = 8  # mistakes listed as the class's most common


# -- the data ---------------------------------------------------------------------------------
@dataclass
class Mistake:
    mistake: str
    students: list = field(default_factory=list)
    example: str = ""  # one student's message, in words
    rank: tuple = ()  # how good an example it is (lower is better)


@dataclass
class Exercise:
    """One graded cell (a test cell or a Quick Check)."""
    name: str
    notebook: str
    max_score: float
    scores: dict = field(default_factory=dict)  # student → score
    mistakes: dict = field(default_factory=dict)  # mistake id → Mistake


@dataclass
class Student:
    id: str
    name: str = ""
    submitted: bool = False
    score: float = 0.0  # after the late penalty
    penalty: float = 0.0
    failure: str = ""  # why the submission could not be graded (a reason key)
    unreadable: str = ""  # what stopped the report reading this student's data (the others' still count)
    feedback: dict = field(default_factory=dict)  # notebook → path of its feedback page


@dataclass
class Assignment:
    name: str
    max_score: float = 0.0
    notebooks: list = field(default_factory=list)
    exercises: list = field(default_factory=list)
    students: list = field(default_factory=list)

    @property
    def submitted(self) -> list:
        return [s for s in self.students if s.submitted]

    @property
    def judged(self) -> list:
        """The submissions that were run (not those scored 0 because they could not be):
        what each exercise's numbers are about."""
        return [s for s in self.submitted if not s.failure or s.failure == "feedback"]


def collect(root: Path, config, assignments=None, mistakes_of=None) -> list:
    """Every assignment of the gradebook (or the named ones) with each student's scores;
    the mistakes too for the assignments in ``mistakes_of`` (default: all; they read every
    autograded notebook)."""
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=config)
    found = []
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        students = sorted(gb.students, key=lambda s: s.id)
        for assignment in sorted(gb.assignments, key=lambda a: a.name):
            if assignments is not None and assignment.name not in assignments:
                continue
            data = Assignment(assignment.name, assignment.max_score or 0.0)
            order = _cell_order(coursedir, assignment.name)
            for notebook in sorted(assignment.notebooks, key=lambda n: n.name):
                data.notebooks.append(notebook.name)
                cells = sorted(notebook.grade_cells, key=lambda c: (order.get((notebook.name, c.name), len(order)), c.name))
                data.exercises += [Exercise(c.name, notebook.name, c.max_score or 0.0) for c in cells]
            by_name = {(x.notebook, x.name): x for x in data.exercises}
            failed = failures.recorded(root, assignment.name)
            for student in students:
                row = Student(student.id, " ".join(filter(None, [student.first_name, student.last_name])))
                data.students.append(row)
                try:
                    submission = gb.find_submission(assignment.name, student.id)
                except MissingEntry:
                    continue
                try:
                    _read_scores(coursedir, data, by_name, row, submission, failed)
                except Exception as error:  # noqa: BLE001  (one student's data costs their row, not the report)
                    row.unreadable = _problem(error)
            if mistakes_of is None or assignment.name in mistakes_of:
                _read_mistakes(coursedir, data)
            found.append(data)
    return found


def _read_scores(coursedir, data: Assignment, by_name: dict, row: Student, submission, failed: dict) -> None:
    """A submitted student's score, late penalty, failure, exercise scores and feedback pages."""
    row.submitted, row.penalty = True, float(submission.late_submission_penalty or 0.0)
    row.score = max(0.0, float(submission.score or 0.0) - row.penalty)
    row.failure = failed.get(row.id, "")
    for notebook in submission.notebooks:
        for grade in notebook.grades:
            exercise = by_name.get((notebook.name, grade.name))
            if exercise is not None:
                exercise.scores[row.id] = float(grade.score or 0.0)
        page = Path(coursedir.format_path(coursedir.feedback_directory, row.id, data.name)) / f"{notebook.name}.html"
        if page.is_file():
            row.feedback[notebook.name] = page


def _problem(error: Exception) -> str:
    """What went wrong reading one student's data, in one short line (their row shows it)."""
    text = printable(f"{type(error).__name__}: {error}")
    return text if len(text) <= 200 else text[:199] + "…"


def _cell_order(coursedir, assignment: str) -> dict:
    """(notebook, grade id) → position in the instructor's source notebook."""
    folder = Path(coursedir.format_path(coursedir.source_directory, ".", assignment))
    order = {}
    for path in sorted(folder.glob("*.ipynb")):
        try:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        except (OSError, ValueError, KeyError):
            continue
        for cell in cells:
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if grade_id:
                order.setdefault((path.stem, grade_id), len(order))
    return order


def _read_mistakes(coursedir, data: Assignment) -> None:
    """Each exercise's mistakes, from the verdicts in the autograded notebooks (a student's
    notebook is read as untrusted data: anything malformed is skipped)."""
    by_name = {(x.notebook, x.name): x for x in data.exercises}
    for student in data.judged:
        folder = Path(coursedir.format_path(coursedir.autograded_directory, student.id, data.name))
        for notebook in data.notebooks:
            try:
                nb = json.loads((folder / f"{notebook}.ipynb").read_text(encoding="utf-8"))
                failed = summary.failed_cells(nb) if isinstance(nb, dict) else []
            except (OSError, ValueError, AttributeError, TypeError):
                continue
            except Exception as error:  # noqa: BLE001  (a notebook nested past Python's recursion, say)
                student.unreadable = _problem(error)
                continue
            for cell in failed:
                try:
                    _count_mistake(by_name.get((notebook, cell.grade_id)), student, cell)
                except Exception as error:  # noqa: BLE001  (one student's verdict costs their row, not the report)
                    student.unreadable = _problem(error)


def _count_mistake(exercise: Exercise | None, student: Student, cell) -> None:
    """One failed cell of a student: the mistake it names counts the student once, and its
    message may be the mistake's example (the shortest readable one)."""
    if exercise is None or exercise.scores.get(student.id, 0.0) >= exercise.max_score > 0:
        return  # a cell given full points by hand in formgrader is no mistake
    seen = exercise.mistakes.setdefault(cell.mistake[:100], Mistake(cell.mistake[:100]))
    if student.id in seen.students:
        return
    text, readable = _message(cell)
    seen.students.append(student.id)
    rank = (not readable, len(text))
    if text and (not seen.example or rank < seen.rank):
        seen.example, seen.rank = text, rank


def _message(cell) -> tuple:
    """The failed cell's message in words (the verdict's, else the error the cell showed),
    and whether it is a real one: the shortest real message is a mistake's example."""
    if cell.key:
        text = messages.render(cell.key, cell.fields)
        readable = cell.key == "judge.malformed" or text != messages.render("judge.malformed", {})
    else:
        text, readable = cell.error, True
    text = " ".join(printable(text).split())  # (a right-to-left override reorders a page's text too)
    return (text if len(text) <= EXAMPLE_CHARS else text[:EXAMPLE_CHARS - 1] + "…"), readable


# -- plots ------------------------------------------------------------------------------------
def points(value: float) -> str:
    return f"{value:g}"


def histogram(scores, top: float) -> list:
    """[(label, number of students)]: one bar per point when the points are whole, else ten."""
    scores = list(scores)
    if top <= 0:
        return [("0", len(scores))]
    if top <= 20 and float(top).is_integer() and all(float(s).is_integer() for s in scores):
        return [(str(k), sum(1 for s in scores if int(s) == k)) for k in range(int(top) + 1)]
    width = top / 10
    bars = []
    for k in range(10):
        low, high = k * width, (k + 1) * width
        inside = [s for s in scores if low <= s < high or (k == 9 and s >= high)]
        bars.append((f"{points(round(low, 2))}–{points(round(high, 2))}", len(inside)))
    return bars


def bar_chart(ident: str, bars: list, title: str, caption: str, x_label: str, y_label: str,
              percent: bool = False) -> dict:
    """What ``macros.bar_chart`` draws: the geometry of every bar, the title and the caption
    (which states every bar's number)."""
    n = max(len(bars), 1)
    longest = max([len(label) for label, _ in bars] + [1])
    step = max(34 if n <= 12 else 22, int(6.5 * longest) + 10)
    left, bottom, top_margin, height = 40, 44, 22, 130
    width = left + step * n + 12
    tallest = 100 if percent else max([count for _, count in bars] + [1])
    drawn = []
    for i, (label, count) in enumerate(bars):
        h = height * count / tallest
        x = left + i * step + 3
        drawn.append({"x": x, "y": f"{top_margin + height - h:.1f}", "height": f"{h:.1f}", "centre": x + (step - 6) / 2,
                      "count_y": f"{top_margin + height - h - 4:.1f}", "label": label,
                      "shown": f"{count:.0f}%" if percent else str(count)})
    return {"ident": ident, "title": title, "caption": caption, "x_label": x_label, "y_label": y_label,
            "width": width, "full_height": height + bottom + top_margin, "left": left, "top": top_margin,
            "base": top_margin + height, "middle": top_margin + height / 2, "x_label_at": left + step * n / 2,
            "tallest": tallest, "bar_width": step - 6, "bars": drawn}


def _bars_in_words(bars: list, percent: bool = False) -> str:
    return messages.text("report.and").join(
        messages.text("report.bar_percent" if percent else "report.bar", label=label,
                      count=f"{count:.0f}" if percent else count) for label, count in bars)


def score_plot(ident: str, what: str, scores, top: float) -> dict:
    bars = histogram(scores, top)
    said = _bars_in_words([bar for bar in bars if bar[1]])  # the empty bars go without saying
    if any(not count for _, count in bars):
        said += messages.text("report.and") + messages.text("report.nobody_else")
    caption = messages.text("report.distribution_caption", what=what, max_score=points(top), bars=said)
    return bar_chart(ident, bars, messages.text("report.distribution_title", what=what), caption,
                     messages.text("report.axis_points"), messages.text("report.axis_students"))


# -- the pages --------------------------------------------------------------------------------
STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; color: #1d1d1f; margin: 0 auto; max-width: 1100px; padding: 1em 1.5em; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
h3 { margin-bottom: .3em; } .muted { color: #555; }
table { border-collapse: collapse; margin: .5em 0 1em; } th, td { border: 1px solid #ccc; padding: .25em .5em;
  text-align: left; vertical-align: top; } th { background: #f2f2f2; } td.num { text-align: right; }
.exercise { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }
.exercise > div { flex: 1 1 420px; min-width: 0; }
figure.plot { margin: .3em 0; } figcaption { font-size: .85em; color: #444; max-width: 28em; }
svg .bar { fill: #3a6ea5; } svg .axis { stroke: #333; } svg text { font: 11px system-ui, sans-serif; fill: #222; }
svg .label { font-size: 12px; } .example { font-size: .9em; color: #333; }
.warn { color: #8a1c1c; } a { color: #0b57a4; }
nav a { margin-right: 1em; }
"""
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


@functools.cache
def _templates():
    """The pages' templates; every value a template prints is escaped (``autoescape``)."""
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
                              autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                              undefined=jinja2.StrictUndefined)


def _render(template: str, title: str, **values) -> str:
    from markupsafe import Markup

    return _templates().get_template(template).render(  # (the style and the policy are ours: printed as they are)
        title=title, csp=Markup(CSP), style=Markup(STYLE), now=_now(),
        t=lambda key, **fields: messages.text(f"report.{key}", **fields), **values)


def _href(path: Path, folder: Path) -> str:
    """A relative link from a page in ``folder`` to ``path`` (each part percent-encoded)."""
    import os

    return "/".join(quote(part, safe="") for part in Path(os.path.relpath(path, folder)).parts)


def _reason(reason: str) -> str:
    key = f"report.reason_{reason}"
    return messages.text(key) if messages.has(key) else messages.text("report.reason_other", reason=reason)


def assignment_page(root: Path, data: Assignment) -> str:
    folder = Path(root) / FOLDER
    submitted = data.submitted
    totals = [s.score for s in submitted]
    failed = []
    for student in (s for s in submitted if s.failure):
        log = failures.log_path(root, data.name, student.id)
        failed.append({"student": student, "why": _reason(student.failure),
                       "log": _href(log, folder) if log.is_file() else ""})
    links = {s.id: s for s in data.students}
    exercises = []
    for i, exercise in enumerate(data.exercises):
        scores = [exercise.scores.get(s.id, 0.0) for s in data.judged]
        mistakes = [{"name": mistake_name(m.mistake), "example": m.example, "count": len(m.students),
                     "who": [{"id": s, "href": _href(links[s].feedback[exercise.notebook], folder)
                              if s in links and exercise.notebook in links[s].feedback else ""}
                             for s in sorted(m.students)]}
                    for m in sorted(exercise.mistakes.values(), key=lambda m: (-len(m.students), m.mistake))]
        exercises.append({"name": exercise.name, "max_score": points(exercise.max_score), "mistakes": mistakes,
                          "mean": points(round(statistics.mean(scores), 2)) if scores else None,
                          "plot": score_plot(f"ex{i}", messages.text("report.exercise", exercise=exercise.name),
                                             scores, exercise.max_score) if scores else None})
    students = []
    for student in data.students:
        students.append({"student": student, "why": _reason(student.failure) if student.failure else "",
                         "unreadable": messages.text("report.unreadable", error=student.unreadable)
                         if student.unreadable else "",
                         "score": points(round(student.score, 2)), "penalty": points(student.penalty) if student.penalty else "",
                         "scores": [points(x.scores[student.id]) if student.id in x.scores else "" for x in data.exercises],
                         "feedback": [{"notebook": notebook, "href": _href(page, folder)}
                                      for notebook, page in student.feedback.items()]})
    return _render("assignment.html.j2", messages.text("report.title", assignment=data.name), a=data,
                   course_href=_href(folder / COURSE_PAGE, folder), failed=failed,
                   missing=len([s for s in data.students if not s.submitted]),
                   mean=points(round(statistics.mean(totals), 2)) if totals else "",
                   median=points(statistics.median(totals)) if totals else "", max_score=points(data.max_score),
                   total_plot=score_plot("total", messages.text("report.total", assignment=data.name), totals,
                                         data.max_score) if totals else None,
                   common=_common_mistakes(data), exercises=exercises, students=students)


def _common_mistakes(data: Assignment) -> list:
    """The class's most common mistakes, counted once per student as the class summary counts
    them, each with the exercises it was made in."""
    found: dict = {}
    for i, exercise in enumerate(data.exercises):
        for mistake in exercise.mistakes.values():
            students, places = found.setdefault(mistake.mistake, (set(), []))
            students.update(mistake.students)
            places.append({"index": i, "name": exercise.name})
    ranked = sorted(found.items(), key=lambda item: (-len(item[1][0]), item[1][1][0]["index"], item[0]))
    return [{"name": mistake_name(mistake), "places": places, "count": len(students)}
            for mistake, (students, places) in ranked[:COMMON]]


def course_page(root: Path, course: str, assignments: list, ungraded: list) -> str:
    """Every lesson side by side: who is behind, which lesson and exercise are hardest."""
    folder = Path(root) / FOLDER
    lessons, bars, exercises = [], [], []
    for data in assignments:
        shares = [s.score / data.max_score for s in data.submitted if data.max_score]
        mean = 100 * statistics.mean(shares) if shares else None
        if mean is not None:
            bars.append((data.name, mean))
        ranked = []
        for x in data.exercises:
            values = [x.scores[s.id] / x.max_score for s in data.judged if s.id in x.scores and x.max_score]
            if values:
                ranked.append((100 * statistics.mean(values), x.name))
                exercises.append((100 * statistics.mean(values), data.name, x.name, len(values)))
        hardest = min(ranked) if ranked else None
        lessons.append({"name": data.name, "href": _href(folder / f"{data.name}.html", folder),
                        "submitted": len(data.submitted), "students": len(data.students),
                        "mean": "" if mean is None else f"{mean:.0f}%",
                        "hardest": {"name": hardest[1], "mean": f"{hardest[0]:.0f}%"} if hardest else None})
    hardest_lesson, plot = None, None
    if len(bars) > 1:  # a comparison needs two lessons
        name, mean = min(bars, key=lambda b: b[1])
        hardest_lesson = {"name": name, "mean": f"{mean:.0f}"}
        caption = messages.text("report.lessons_caption", bars=_bars_in_words(bars, percent=True))
        plot = bar_chart("lessons", bars, messages.text("report.lessons_title"), caption,
                         messages.text("report.axis_lessons"), messages.text("report.axis_mean"), percent=True)
    return _render("course.html.j2", messages.text("report.course_title", course=course), course=course,
                   lessons=lessons, ungraded=ungraded, hardest_lesson=hardest_lesson, lessons_plot=plot,
                   hardest=[{"name": name, "lesson": lesson, "mean": f"{mean:.0f}%", "count": count}
                            for mean, lesson, name, count in sorted(exercises)[:HARDEST]],
                   behind_share=f"{100 * BEHIND:.0f}", students=_course_students(assignments),
                   assignments=[{"name": d.name, "href": _href(folder / f"{d.name}.html", folder)} for d in assignments])


def _course_students(assignments: list) -> list:
    """Each student's row of the course page, those behind first."""
    ids = sorted({s.id for data in assignments for s in data.students})
    rows = []
    for student in ids:
        cells, got, possible, missing, failed = [], 0.0, 0.0, [], []
        for data in assignments:
            row = next((s for s in data.students if s.id == student), None)
            if row is None or not row.submitted:
                cells.append({"submitted": False})
                if data.submitted:  # graded for somebody: a lesson this student is missing
                    missing.append(data.name)
                    possible += data.max_score
                continue
            got, possible = got + row.score, possible + data.max_score
            if row.failure and row.failure != "feedback":
                failed.append(data.name)
            cells.append({"submitted": True, "score": points(round(row.score, 2)), "max_score": points(data.max_score),
                          "why": _reason(row.failure) if row.failure else ""})
        share = got / possible if possible else 0.0
        behind = bool(missing or failed) or share < BEHIND
        why = []
        if missing:
            why.append(messages.text("report.behind_missing", lessons=", ".join(missing)))
        if failed:
            why.append(messages.text("report.behind_failed", lessons=", ".join(failed)))
        if share < BEHIND and possible:
            why.append(messages.text("report.behind_share", share=f"{100 * share:.0f}"))
        rows.append({"ok": not behind, "share_value": share, "id": student, "cells": cells,
                     "share": f"{100 * share:.0f}%", "why": "; ".join(why)})
    return sorted(rows, key=lambda r: (r["ok"], r["share_value"], r["id"]))


def _now() -> str:
    return datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()


# -- writing ----------------------------------------------------------------------------------
def write_all(root: Path, config, assignments: list | None = None) -> list:
    """Write the pages of ``assignments`` (default: every one in the gradebook) and the course
    page; returns their paths, the course page last."""
    from nbgrader.coursedir import CourseDirectory

    root = Path(root)
    everything = collect(root, config, mistakes_of=set(assignments) if assignments is not None else None)
    wanted = [d for d in everything if assignments is None or d.name in assignments]
    folder = root / FOLDER
    folder.mkdir(exist_ok=True)
    written = []
    for data in wanted:
        path = folder / f"{data.name}.html"
        _write(path, assignment_page(root, data))
        written.append(path)
    graded = {d.name for d in everything}
    ungraded = sorted(preflight.source_assignments(root, config) - graded)
    course = CourseDirectory(config=config).course_id or ""
    path = folder / COURSE_PAGE
    _write(path, course_page(root, course, everything, ungraded))
    written.append(path)
    return written


def _write(path: Path, text: str) -> None:
    """Replace a page whole (a reader never sees half of one)."""
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
