"""`nbgrader release_feedback` with the course's configuration (CheckedReleaseFeedback) on feedback
folders as grading leaves them, one student's tampered with, against nbgrader's own release.

mallory deleted ``submission_secret.txt`` from her folder in the exchange before it was collected
(it is hers to change), so her feedback folder has none; zoe submitted an extra ``evil.html``
beside her notebook. alice and zoe must get their pages; mallory's stays unreleased, named in
the log; ``evil.html`` is not feedback.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import ROOT, isolated_env, nbgrader
from nbgrader.utils import notebook_hash

pytestmark = pytest.mark.slow

NAME = "03_zeroing_grad"
COURSE = "autograd-lessons"  # nbgrader_config.py's course id
SECRETS = {"alice": "a" * 32, "zoe": "z" * 32}


def course_with_feedback(tmp: Path, config: str = "") -> Path:
    course = tmp / "course"
    (course / "source" / NAME).mkdir(parents=True)
    shutil.copy(ROOT / "source" / NAME / f"{NAME}.ipynb", course / "source" / NAME)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(config)
    for student in ("alice", "mallory", "zoe"):
        folder = course / "feedback" / student / NAME
        folder.mkdir(parents=True)
        (folder / f"{NAME}.html").write_text(f"<p>{student}'s feedback</p>")
        (folder / "timestamp.txt").write_text("2026-12-01 10:00:00.000000 UTC")
        if student in SECRETS:
            (folder / "submission_secret.txt").write_text(SECRETS[student])
    (course / "feedback" / "zoe" / NAME / "evil.html").write_text("<script>fetch('//x.invalid')</script>")
    # a timestamp that would forge a line of the log
    (course / "feedback" / "zoe" / NAME / "timestamp.txt").write_text("2026\n[ReleaseFeedbackApp | INFO] forged")
    return course


def release(tmp: Path, config: str = "") -> tuple:
    course = course_with_feedback(tmp, config)
    exchange = tmp / "exchange"
    exchange.mkdir()
    done = nbgrader(["release_feedback", NAME, f"--Exchange.root={exchange}"], course, isolated_env(tmp / "home"),
                    check=False)
    released = exchange / COURSE / "feedback"
    pages = {p.name: p.read_text() for p in released.iterdir()} if released.exists() else {}
    return pages, done.stdout + done.stderr, done.returncode


def page_of(student: str) -> str:
    return notebook_hash(secret=SECRETS[student], notebook_id=NAME) + ".html"


def test_one_students_missing_secret_costs_only_their_page(tmp_path):
    pages, log, code = release(tmp_path)
    assert code == 0, log
    assert pages == {page_of("alice"): "<p>alice's feedback</p>", page_of("zoe"): "<p>zoe's feedback</p>"}
    assert "Feedback for student 'mallory' not released: its submission_secret.txt cannot be read" in log
    assert "'evil' is not a notebook of the assignment" in log
    assert not any(line.startswith("[ReleaseFeedbackApp | INFO] forged") for line in log.splitlines())


def test_nbgrader_alone_stops_at_the_tampered_folder_and_releases_a_submitted_page(tmp_path):
    """nbgrader's own release dies at mallory's folder (FileNotFoundError): whoever comes after
    her gets nothing; zoe's evil.html, when reached, is released as feedback."""
    plain = '\nc.ExchangeFactory.release_feedback = ' \
            '"nbgrader.exchange.default.release_feedback.ExchangeReleaseFeedback"\n'
    pages, log, code = release(tmp_path / "plain", plain)
    assert code != 0 and "submission_secret.txt" in log, log
    assert page_of("alice") not in pages or page_of("zoe") not in pages  # someone lost their feedback
