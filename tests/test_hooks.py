"""nbgrader's hooks from nbgrader_config.py: links and special files in a submission are moved
aside (never followed), and a student's feedback folder keeps only the feedback pages and
nbgrader's own records of the submission."""
from __future__ import annotations

import os

from autograder.instructor.passes import hooks


def _course(tmp_path):
    submission = tmp_path / "submitted" / "mallory" / "a1"
    submission.mkdir(parents=True)
    (submission / "a1.ipynb").write_text("{}")
    (submission / "data.csv").write_text("1,2")
    (submission / "instructor.ipynb").symlink_to(tmp_path / "source.ipynb")
    (tmp_path / "source.ipynb").write_text("the instructor's solutions")
    os.mkfifo(submission / "pipe")
    (submission / "sub").mkdir()
    (submission / "sub" / "escape").symlink_to("/etc")
    return submission


def test_links_and_special_files_are_moved_aside_not_followed(tmp_path):
    submission = _course(tmp_path)
    moved = hooks.quarantine_unsafe_files("a1", "*", [str(submission / "a1.ipynb")])
    assert sorted(map(str, moved)) == ["instructor.ipynb", "pipe", "sub/escape"]
    assert sorted(p.name for p in submission.rglob("*")) == ["a1.ipynb", "data.csv", "sub"]
    quarantine = tmp_path / "autograder-logs" / "a1" / "quarantine" / "mallory"
    assert (quarantine / "instructor.ipynb").is_symlink()  # the link itself, kept for the instructor
    assert (tmp_path / "source.ipynb").read_text() == "the instructor's solutions"


def test_feedback_keeps_the_pages_and_nbgraders_records_only(tmp_path):
    autograded = tmp_path / "autograded" / "mallory" / "a1"
    autograded.mkdir(parents=True)
    feedback = tmp_path / "feedback" / "mallory" / "a1"
    (feedback / "extra").mkdir(parents=True)
    (feedback / "a1.html").write_text("<html>" + "x" * 500_000 + "</html>")  # big pages stay
    (feedback / "timestamp.txt").write_text("2026-11-30 12:00:00")
    (feedback / "submission_secret.txt").write_text("s3cret")
    (feedback / "copied_source.ipynb").write_text("{}")
    (feedback / "extra" / "many.txt").write_text("x")
    (feedback / "link.html").symlink_to(tmp_path)
    hooks.feedback_only("a1", "*", [str(autograded / "a1.ipynb")])
    assert sorted(p.name for p in feedback.iterdir()) == ["a1.html", "submission_secret.txt", "timestamp.txt"]
