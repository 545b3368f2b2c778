"""Grade a whole class: every submission of an assignment through nbgrader's own pipeline,
in parallel, each in a fresh pre-warmed sandboxed kernel, then feedback and the CSV export.

* Workers are long-lived processes; each grades one submission at a time with
  nbgrader's ``Autograde`` converter (the same preprocessors ``nbgrader autograde``
  runs, with ``ResilientExecute`` in place of ``Execute``) and then generates that
  student's feedback.
* Kernels come from the fork server (autograder.forkserver): a fresh process per
  submission, forked from one that already imported torch, torch.optim, matplotlib
  and the lesson packages, with the sandbox applied before any student code runs.
* A submission that cannot be graded at all (not JSON, empty, unreadable) gets 0 on
  every question of that notebook, and its feedback says why; the others are not
  affected.
"""
from __future__ import annotations

import atexit
import concurrent.futures as futures
import html
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import forkserver, messages

WORKER = {}  # per worker process: the nbgrader API object


@dataclass
class Outcome:
    student: str
    ok: bool
    seconds: float
    reason: str = ""


@dataclass
class Report:
    assignment: str
    outcomes: list = field(default_factory=list)
    seconds: float = 0.0
    mistakes: list = field(default_factory=list)  # (message key, number of students)
    exported: str = ""


def sqlite_with_timeout(db_url: str) -> str:
    """Let SQLite writers wait for each other instead of failing with 'database is locked'."""
    if db_url.startswith("sqlite:") and "timeout=" not in db_url:
        return db_url + ("&" if "?" in db_url else "?") + "timeout=120"
    return db_url


def course_config(root: Path, db_url: str | None, kernel_name: str | None, timeout: int | None):
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    config.CourseDirectory.root = str(root)
    if db_url:
        config.CourseDirectory.db_url = db_url
    config.CourseDirectory.db_url = sqlite_with_timeout(config.CourseDirectory.db_url)
    preprocessors = [
        "autograder.nbgrader_ext.ResilientExecute",
        "nbgrader.preprocessors.IgnorePattern",
        "nbconvert.preprocessors.ClearMetadataPreprocessor",
        "nbgrader.preprocessors.LimitOutput",
        "nbgrader.preprocessors.SaveAutoGrades",
        "nbgrader.preprocessors.AssignLatePenalties",
        "autograder.nbgrader_ext.FastCheckCellMetadata",
    ]
    config.Autograde.autograde_preprocessors = preprocessors
    if kernel_name:
        config.ResilientExecute.kernel_name = kernel_name
        config.AsyncKernelManager.client_class = "autograder.forkserver.ReadyClient"
        # each kernel serves one submission and is thrown away: no need to wait for a clean exit
        config.ResilientExecute.shutdown_kernel = "immediate"
    if timeout:
        config.Execute.timeout = timeout
    return config


def _init_worker(root: str, config) -> None:
    import logging

    # jsonschema (via nbformat) imports rfc3987_syntax, which builds a grammar at import:
    # 0.8 s of CPU per worker, for IRI format checks that nbformat and nbgrader never make
    sys.modules.setdefault("rfc3987_syntax", None)

    import gc

    # no collections while importing nbgrader (0.1 s less per worker start); then the modules'
    # objects are frozen, so that the full collections while grading skip them
    gc.disable()
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    gc.freeze()
    gc.enable()

    os.chdir(root)
    atexit.register(_exit_now)
    coursedir = CourseDirectory(config=config)
    WORKER["api"] = NbGraderAPI(coursedir=coursedir, config=config)
    WORKER["api"].log.setLevel(logging.WARNING)
    WORKER["db_url"] = coursedir.db_url
    WORKER["timeout"] = config.Execute.get("timeout", 120) if "Execute" in config else 120


def _exit_now() -> None:
    """A worker's last act: exit at once instead of tearing down nbgrader's large module
    graph (0.3 s per worker at the end of every run). Its grades and files are all
    committed and closed by then."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _grade_one(assignment: str, student: str) -> Outcome:
    api = WORKER["api"]
    start = time.perf_counter()
    result = api.autograde(assignment, student, force=True, create=True)
    if result["success"]:
        verify_submission(api.coursedir, WORKER["db_url"], assignment, student,
                          WORKER["timeout"])
        feedback = api.generate_feedback(assignment, student, force=True)
        ok = feedback["success"]
        reason = "" if ok else feedback.get("error", "")[-500:]
    else:
        reason = _reason(result)
        _keep_log(api.coursedir.root, assignment, student, result)
        if reason == MISSING:
            explain = lambda notebook: messages.text("grading.missing", notebook=notebook)  # noqa: E731
        else:
            explain = lambda notebook: messages.text("grading.unreadable", notebook=notebook,  # noqa: E731
                                                     reason=reason)
        zero_submission(WORKER["db_url"], api.coursedir, assignment, student, explain)
        ok = False
    return Outcome(student, ok, time.perf_counter() - start, reason)


MISSING = "no notebook was submitted"


def _keep_log(root: str, assignment: str, student: str, result: dict) -> None:
    """nbgrader's full log and traceback of a failed submission, for the instructor."""
    folder = Path(root) / "autograder-logs" / assignment
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{student}.log").write_text((result.get("log") or "") + "\n" + (result.get("error") or ""))


def verify_submission(coursedir, db_url: str, assignment: str, student: str,
                      timeout: int = 120) -> dict:
    """Re-run the checks in a fresh sandboxed process where they cannot have been tampered
    with (autograder.verify); a test cell keeps its points only if it passes there too.
    Returns {notebook: {grade id: reason}} for the cells that lost points."""
    from nbgrader.api import Gradebook

    from . import sandbox, verify

    folder = Path(coursedir.format_path(coursedir.autograded_directory, student, assignment))
    env = {k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}
    env["LESSONS_NO_PLOTS"] = "1"
    lost: dict = {}
    source_folder = Path(coursedir.format_path(coursedir.source_directory, ".", assignment))
    for path in sorted(folder.glob("*.ipynb")):
        notebook = json.loads(path.read_text())
        instructor = source_folder / path.name
        cells = verify.cells_of(notebook, json.loads(instructor.read_text()) if instructor.exists() else None)
        result_file = Path(tempfile.mkstemp(suffix=".json")[1])
        request = {"verify": cells, "result": str(result_file), "cwd": str(folder), "env": env,
                   "limits": sandbox.limits_from_env(env), "timeout": timeout}
        child = forkserver.ForkedProcess(forkserver.request_kernel(os.environ[forkserver.ENV_SOCKET], request))
        budget = timeout * len(cells) + 60
        try:
            child.wait(timeout=budget)
            results = json.loads(result_file.read_text() or "{}")
        except (TimeoutError, ValueError, OSError):
            child.kill()
            results = {}
        finally:
            result_file.unlink(missing_ok=True)
        with Gradebook(db_url, coursedir.course_id) as gb:
            submitted = gb.find_submission_notebook(path.stem, assignment, student)
            for grade in submitted.grades:
                verdict = results.get(grade.name, {"passed": False, "message": "not verified"})
                if (grade.auto_score or 0) > 0 and not verdict["passed"]:
                    grade.auto_score = 0
                    lost.setdefault(path.stem, {})[grade.name] = verdict["message"]
            gb.db.commit()
        if path.stem in lost:
            _annotate(path, notebook, lost[path.stem])
    return lost


def _annotate(path: Path, notebook: dict, lost: dict) -> None:
    """Tell the student, in the test cell's output, why it lost its points."""
    for cell in notebook["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in lost:
            text = f"{messages.text('grading.tampered')} ({lost[grade_id]})"
            cell.setdefault("outputs", []).append(
                {"output_type": "error", "ename": "GradingCheck", "evalue": text, "traceback": [text]})
    os.chmod(path, 0o644)
    path.write_text(json.dumps(notebook, indent=1))
    os.chmod(path, 0o444)


def _reason(result: dict) -> str:
    """One line a student can read, from nbgrader's log and traceback."""
    text = (result.get("error") or "") + (result.get("log") or "")
    for marker, reason in (("NotJSONError", "the file is not a valid notebook (not JSON)"),
                           ("JSONDecodeError", "the file is not a valid notebook (not JSON)"),
                           ("Notebook does not appear to be JSON", "the file is not a valid notebook (not JSON)"),
                           ("ValidationError", "the file is not a valid notebook (its structure is broken)"),
                           ("No notebooks were matched", MISSING),
                           ("No notebooks found", MISSING)):
        if marker in text:
            return reason
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "grading failed"


def zero_submission(db_url: str, coursedir, assignment: str, student: str, explain) -> None:
    """Give 0 on every question of a submission that could not be graded, and say why
    (``explain(notebook file name)`` is the sentence for the student's feedback)."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url, coursedir.course_id) as gb:
        gb.update_or_create_student(student)
        submission = gb.update_or_create_submission(assignment, student)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                grade.auto_score = 0
                grade.needs_manual_grade = False
            gb.db.commit()
            folder = Path(coursedir.format_path(coursedir.feedback_directory, student, assignment))
            folder.mkdir(parents=True, exist_ok=True)
            message = explain(f"{notebook.name}.ipynb")
            (folder / f"{notebook.name}.html").write_text(
                f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(notebook.name)}"
                f"</title></head><body><h1>{html.escape(notebook.name)}</h1><p>{html.escape(message)}</p>"
                f"<p>Score: 0</p></body></html>")
            # `nbgrader release_feedback` reads these beside every feedback file (and stops
            # for the whole class if they are missing); nbgrader's feedback copies them too
            submitted = Path(coursedir.format_path(coursedir.submitted_directory, student, assignment))
            for name in ("timestamp.txt", "submission_secret.txt"):
                if (submitted / name).is_file():
                    shutil.copy(submitted / name, folder / name)


def submitted_students(root: Path, assignment: str) -> list:
    base = root / "submitted"
    return sorted(p.name for p in base.iterdir() if (p / assignment).is_dir()) if base.is_dir() else []


class ForkServer:
    """The fork server process and the kernel spec that points at it, for one grading run."""

    def __init__(self, log: Path | None = None):
        self.folder = Path(tempfile.mkdtemp(prefix="autograder-"))
        self.socket = str(self.folder / "fork.sock")
        forkserver.install_kernelspec(self.folder / "share")
        log = Path(log or self.folder / "kernels.log")
        log.parent.mkdir(parents=True, exist_ok=True)
        self.log = open(log, "w")  # the kernels' own logging, not students' output
        # it warms up (imports torch…) while the workers start; they wait for its socket
        self.process = subprocess.Popen([sys.executable, "-m", "autograder.forkserver", self.socket],
                                        stdout=subprocess.DEVNULL, stderr=self.log, text=True)

    def environment(self) -> dict:
        jupyter_path = os.pathsep.join(filter(None, [str(self.folder / "share"),
                                                     os.environ.get("JUPYTER_PATH")]))
        return {"JUPYTER_PATH": jupyter_path, forkserver.ENV_SOCKET: self.socket}

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def show_progress(done: int, total: int, failed: int, started: float, stream=sys.stderr) -> None:
    elapsed = time.perf_counter() - started
    left = elapsed / done * (total - done) if done else 0
    width = 30
    bar = "#" * (width * done // total) + "." * (width - width * done // total)
    line = f"[{bar}] {done}/{total} graded, {failed} failed, {elapsed:.0f} s, ~{left:.0f} s left"
    end = "\r" if stream.isatty() and done < total else "\n"
    stream.write(("\r" if stream.isatty() else "") + line + end)
    stream.flush()


def grade(root: Path, assignment: str, jobs: int = 2, students: list | None = None,
          db_url: str | None = None, timeout: int | None = None, progress=show_progress,
          export_to: str | None = "grades.csv") -> Report:
    """Autograde, then give feedback to, every (or the named) student's submission, and
    export the grades. The main process only coordinates: the workers hold nbgrader."""
    root = Path(root).resolve()
    students = students or submitted_students(root, assignment)
    report = Report(assignment)
    started = time.perf_counter()
    server = ForkServer(log=root / "autograder-logs" / assignment / "kernels.log")
    saved_env = dict(os.environ)
    os.environ.update(server.environment())
    try:
        config = course_config(root, db_url, forkserver.KERNEL_NAME, timeout)
        context = multiprocessing.get_context("spawn")
        with futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context,
                                         initializer=_init_worker, initargs=(str(root), config)) as pool:
            pool.submit(_check_assignment, assignment).result()
            pending = [pool.submit(_grade_one, assignment, s) for s in students]
            for future in futures.as_completed(pending):
                report.outcomes.append(future.result())
                if progress:
                    progress(len(report.outcomes), len(students),
                             sum(not o.ok for o in report.outcomes), started)
            if export_to:
                report.exported = pool.submit(_export, export_to).result()
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        server.close()
    from . import summary
    report.mistakes = summary.common_mistakes(root, assignment, students)
    report.seconds = time.perf_counter() - started
    return report


def _check_assignment(assignment: str) -> None:
    """In a worker: fail the whole run early if nbgrader does not know the assignment."""
    from nbgrader.api import Gradebook

    coursedir = WORKER["api"].coursedir
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        gb.find_assignment(assignment)  # MissingEntry: run nbgrader generate_assignment first


def _export(to: str) -> str:
    """In a worker (nbgrader is loaded there): write the grade CSV of the whole course."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin

    coursedir = WORKER["api"].coursedir
    path = Path(coursedir.root) / to
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        CsvExportPlugin(to=str(path)).export(gb)
    return str(path)
