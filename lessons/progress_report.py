"""``lessons.progress()``: which exercises and Quick Check answers of the four lessons pass
right now, read from the notebooks on disk.

Only what grading needs is run: each notebook's setup cell, its answer cells and its
visible test cells, in a fresh IPython shell in a separate process, never the demos
and widgets, in the notebook's own language (its metadata), so each notebook's messages
read as its student reads them. Results are cached by the text of those cells, the
notebook's language and the grader's own code and words, so a notebook that has not
changed since the last call is not run again, and a cached answer is never in another
language than the notebook's.
"""
from __future__ import annotations

import hashlib
import html
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from autograder import messages, titles
from autograder.kernel.screen import WIDTH, wrap

from .text import text

ASSIGNMENTS = ["01_requires_grad", "02_backward", "03_zeroing_grad", "04_no_grad"]
RUN_TIMEOUT = 300  # seconds for all notebooks that need a run


def find_notebooks(start: Path | None = None) -> dict:
    """The lesson notebooks next to (or above) the working directory, by assignment name."""
    start = Path(start or os.getcwd()).resolve()
    found = {}
    for base in (start, start.parent, start / "release", start.parent.parent):
        for name in ASSIGNMENTS:
            path = base / name / f"{name}.ipynb"
            if name not in found and path.exists():
                found[name] = path
    return found


def _strip_hidden(source: str) -> str:
    lines, hidden = [], False
    for line in source.splitlines():
        if "BEGIN HIDDEN TESTS" in line:
            hidden = True
        elif "END HIDDEN TESTS" in line:
            hidden = False
        elif not hidden:
            lines.append(line)
    return "\n".join(lines)


def graded_cells(path: Path) -> dict:
    """The cells grading needs (setup, answers, i.e. solution cells, and visible tests) and
    the language the notebook's messages are written in."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    job = {"setup": "", "answers": [], "tests": [], "language": messages.notebook_language(nb)}
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] != "code":
            continue
        if meta.get("grade_id") == "setup":
            job["setup"] = source
        elif meta.get("solution"):
            job["answers"].append(source)
        elif meta.get("grade"):
            job["tests"].append({"id": meta["grade_id"], "points": meta.get("points", 0),
                                 "source": _strip_hidden(source)})
    return job


def grader_fingerprint() -> str:
    """A digest of what else decides a result and its words: the code and the message files
    of the ``autograder`` and ``lessons`` packages (a new version re-runs every notebook)."""
    import autograder

    digest = hashlib.sha256()
    for package in (Path(autograder.__file__).parent, Path(__file__).parent):
        for path in sorted(package.rglob("*")):
            if path.suffix in (".py", ".toml") and path.is_file():
                digest.update(path.relative_to(package.parent).as_posix().encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _key(job: dict, grader: str) -> str:
    """The cache key of a notebook's job: its cells, its language and the grader's fingerprint."""
    return hashlib.sha256(json.dumps({"job": job, "grader": grader}, sort_keys=True).encode()).hexdigest()


CACHE_VERSION = 2  # the cache's layout: {"version": 2, "notebooks": {path: {"key", "results"}}}


def _cache_file() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "autograd-lessons" / "progress.json"


def _load_cache() -> dict:
    """Cached results by notebook path (each language's copy of a lesson has its own)."""
    try:
        cache = json.loads(_cache_file().read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(cache, dict) or cache.get("version") != CACHE_VERSION:
        return {}  # an older layout (results by lesson name, whatever their language)
    notebooks = cache.get("notebooks")
    return notebooks if isinstance(notebooks, dict) else {}


def _save_cache(cache: dict) -> None:
    path = _cache_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"version": CACHE_VERSION, "notebooks": cache}))
    except OSError:
        pass  # a read-only home only costs the cache


def run_jobs(jobs: dict) -> dict:
    """Run notebooks' graded cells in a separate process; name → list of test results."""
    if not jobs:
        return {}
    done = subprocess.run([sys.executable, "-m", "lessons.progress_runner"],
                          input=json.dumps(jobs), capture_output=True, text=True,
                          timeout=RUN_TIMEOUT)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.splitlines()[-1])


@dataclass
class Progress:
    rows: list = field(default_factory=list)  # (assignment, test id, points, passed, message)
    missing: list = field(default_factory=list)
    ran: list = field(default_factory=list)  # notebooks that had to run (not cached)

    @property
    def score(self) -> tuple:
        return (sum(p for _, _, p, ok, _ in self.rows if ok), sum(p for _, _, p, _, _ in self.rows))

    def titled(self) -> list:
        """The rows as the student knows them: (passed, lesson, exercise or question, points,
        message), named by the notebook's headings ("Lesson 3", "Exercise (b)", "Question 1")
        in the reader's language, never by the grader's ids."""
        out = []
        for name, test, points, ok, message in self.rows:
            checked = titles.test_cell(test)
            out.append((ok, titles.text(titles.lesson(name)), titles.text(checked) if checked else text("progress.check"),
                        points, "" if ok else message))
        return out

    def _missing(self) -> list:
        return [text("progress.missing", name=titles.text(titles.lesson(name))) for name in self.missing]

    def __str__(self) -> str:
        lines = [text("progress.title", got=self.score[0], total=self.score[1])]
        for ok, lesson, checked, points, message in self.titled():
            head = f"{'✓' if ok else '✗'} {lesson} · {checked} ({points})"
            lines.append(head + "".join(f"\n    {line}" for line in wrap(message, WIDTH - 4).splitlines()))
        return "\n".join(lines + self._missing())

    def _repr_html_(self) -> str:
        head = html.escape(text("progress.title", got=self.score[0], total=self.score[1]))
        cell = "<td style='text-align: left; vertical-align: top; white-space: nowrap'>{}</td>"
        rows = "".join(
            "<tr>" + "".join(cell.format(v) for v in ('✓' if ok else '✗', html.escape(lesson), html.escape(checked),
                                                      points))
            + f"<td style='text-align: left; vertical-align: top; white-space: pre-wrap'>{html.escape(message)}</td></tr>"
            for ok, lesson, checked, points, message in self.titled())
        missing = "".join(f"<p>{html.escape(line)}</p>" for line in self._missing())
        header = "".join(f"<th style='text-align: left'>{html.escape(text(f'progress.{c}'))}</th>"
                         for c in ("status", "lesson", "check", "points", "message"))
        return (f"<div class='lesson-progress'><p><b>{head}</b></p><table><tr>{header}</tr>{rows}"
                f"</table>{missing}</div>")


def progress(start: Path | None = None) -> Progress:
    """What passes now in each lesson notebook found near ``start`` (default: the working directory)."""
    notebooks = find_notebooks(start)
    jobs = {name: graded_cells(path) for name, path in notebooks.items()}
    grader = grader_fingerprint()
    keys = {name: _key(job, grader) for name, job in jobs.items()}
    cache = _load_cache()
    entry = {name: str(path) for name, path in notebooks.items()}  # cache entries by notebook path

    def cached(name: str) -> dict:
        found = cache.get(entry[name])
        return found if isinstance(found, dict) and found.get("key") == keys[name] else {}

    stale = {name: job for name, job in jobs.items() if not cached(name)}
    for name, results in run_jobs(stale).items():
        cache[entry[name]] = {"key": keys[name], "results": results}
    if stale:
        _save_cache(cache)
    report = Progress(missing=[n for n in ASSIGNMENTS if n not in notebooks], ran=sorted(stale))
    for name in ASSIGNMENTS:
        for result in cached(name).get("results", []) if name in jobs else []:
            report.rows.append((name, result["id"], result["points"], result["passed"], result["message"]))
    return report
