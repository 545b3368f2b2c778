"""What travels to a Dask worker and back (files as data), and which submissions a rerun
skips (`rerun`): fast, on folders made here, no nbgrader run."""
from __future__ import annotations

import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest
from deep_folders import chain, flatten
from helpers import ROOT

from autograder.instructor import files
from autograder.instructor.grading import rerun
from autograder.instructor.grading.worker import Outcome
from autograder.instructor.passes import hooks

NAME = "hw1"


def test_read_regular_takes_files_as_data_and_never_follows_links(tmp_path):
    folder = tmp_path / "sub"
    (folder / "data").mkdir(parents=True)
    (folder / "hw1.ipynb").write_text("{}")
    (folder / "data" / "x.csv").write_bytes(b"1,2\n")
    os.chmod(folder / "data" / "x.csv", 0o640)
    secret = tmp_path / "secret.txt"
    secret.write_text("the key")
    (folder / "link.txt").symlink_to(secret)
    os.mkfifo(folder / "pipe")
    found, copied = files.read_regular(folder)
    assert [f[0] for f in found] == ["data/x.csv", "hw1.ipynb"]
    assert found[0] == ["data/x.csv", 0o640, b"1,2\n"] and found[1][2] == b"{}"
    assert sorted(copied.skipped) == [("link.txt", "link"), ("pipe", "special file")]
    assert all(b"the key" not in data for _, _, data in found)


def test_read_regular_keeps_to_the_budget(tmp_path):
    for i in range(5):
        (tmp_path / f"f{i}").write_bytes(b"x" * 10)
    found, copied = files.read_regular(tmp_path, max_files=3)
    assert len(found) == 3 and len(copied.skipped) == 2
    found, copied = files.read_regular(tmp_path, max_bytes=25)
    assert len(found) == 2


def test_write_tree_replaces_the_folder_with_exactly_the_data(tmp_path):
    target = tmp_path / "autograded" / "alice" / NAME
    target.mkdir(parents=True)
    (target / "stale.txt").write_text("from an earlier run")
    files.write_tree(target, [["hw1.ipynb", 0o444, b"{}"], ["data/x.csv", 0o600, b"1"]])
    assert sorted(str(p.relative_to(target)) for p in target.rglob("*")) == ["data", "data/x.csv", "hw1.ipynb"]
    assert (target / "hw1.ipynb").read_bytes() == b"{}"
    assert (target / "hw1.ipynb").stat().st_mode & 0o777 == 0o444
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".")]  # nothing left beside it
    assert files.read_regular(target)[0] == [["data/x.csv", 0o600, b"1"], ["hw1.ipynb", 0o444, b"{}"]]


@pytest.mark.parametrize("bad", ["../escape.txt", "/tmp/escape.txt", "a/../../escape.txt", ""])
def test_write_tree_refuses_a_path_that_leaves_the_folder(tmp_path, bad):
    target = tmp_path / "feedback" / "alice" / NAME
    target.mkdir(parents=True)
    (target / "kept.html").write_text("before")
    with pytest.raises(ValueError):
        files.write_tree(target, [["ok.html", 0o644, b"x"], [bad, 0o644, b"y"]])
    assert (target / "kept.html").read_text() == "before"  # the folder is untouched
    assert [p.name for p in target.parent.iterdir()] == [NAME]  # and nothing is left beside it
    assert not (tmp_path / "feedback" / "alice" / "escape.txt").exists()
    assert not (tmp_path / "escape.txt").exists()


def test_copy_regular_still_copies_regular_files_only(tmp_path):
    source, target = tmp_path / "a", tmp_path / "b"
    (source / "d").mkdir(parents=True)
    (source / "d" / "f.txt").write_text("f")
    (source / "l").symlink_to(source / "d" / "f.txt")
    target.mkdir()
    copied = files.copy_regular(source, target)
    assert (target / "d" / "f.txt").read_text() == "f" and not (target / "l").exists()
    assert copied.files == 1 and copied.skipped == [("l", "link")]


def test_a_submission_past_the_read_budget_is_never_taken_as_unchanged(tmp_path):
    """Its digest would miss what sorts after the budget (a notebook after 500 other files): it
    gets a new digest each time, so the next run grades it again."""
    folder = tmp_path / "submitted" / "mallory" / NAME
    folder.mkdir(parents=True)
    (folder / f"{NAME}.ipynb").write_text("the notebook")
    assert rerun.digest(rerun.submitted_files(tmp_path, NAME, "mallory")) == \
        rerun.digest(rerun.submitted_files(tmp_path, NAME, "mallory"))  # within the budget: stable
    for i in range(files.MAX_FILES):
        (folder / f"0{i:05d}.txt").write_text("junk")
    first = rerun.digest(rerun.submitted_files(tmp_path, NAME, "mallory"))
    assert rerun.digest(rerun.submitted_files(tmp_path, NAME, "mallory")) != first


def test_copy_regular_skips_a_file_over_its_own_limit_and_copies_the_rest(tmp_path):
    source, target = tmp_path / "a", tmp_path / "b"
    source.mkdir()
    target.mkdir()
    (source / "big.bin").write_bytes(b"x" * 101)
    (source / "small.txt").write_bytes(b"y" * 100)
    copied = files.copy_regular(source, target, max_file=100)
    assert sorted(p.name for p in target.iterdir()) == ["small.txt"]
    assert (copied.files, copied.bytes, copied.skipped) == (1, 100, [("big.bin", files.TOO_LARGE)])


def test_feedback_keeps_large_pages_and_drops_everything_else(tmp_path):
    autograded = tmp_path / "autograded" / "alice" / NAME
    feedback = tmp_path / "feedback" / "alice" / NAME
    autograded.mkdir(parents=True)
    (feedback / "sub").mkdir(parents=True)
    (feedback / f"{NAME}.html").write_text("<html>" + "x" * 300_000)  # a real page is ~220 KB
    (feedback / "timestamp.txt").write_text("2026-01-01 00:00:00")
    (feedback / "submission_secret.txt").write_text("s" * 100_000)  # not nbgrader's: too large
    (feedback / "notes.py").write_text("student file")
    (feedback / "sub" / "x.html").write_text("nested")
    (feedback / "evil.html").write_text("<script>1</script>")  # submitted beside the notebook
    removed = hooks.feedback_only(NAME, "alice", [str(autograded / f"{NAME}.ipynb")])
    assert sorted(p.name for p in feedback.iterdir()) == [f"{NAME}.html", "timestamp.txt"]
    assert sorted(str(p) for p in removed) == ["evil.html", "notes.py", "sub/x.html", "submission_secret.txt"]


# -- the rerun rule ---------------------------------------------------------------------
def course(tmp_path) -> Path:
    root = tmp_path / "course"
    (root / "source" / NAME).mkdir(parents=True)
    (root / "source" / NAME / f"{NAME}.ipynb").write_text('{"source": 1}')
    for student in ("alice", "bob"):
        folder = root / "submitted" / student / NAME
        folder.mkdir(parents=True)
        (folder / f"{NAME}.ipynb").write_text(f'{{"by": "{student}"}}')
        (folder / "timestamp.txt").write_text("2026-01-01 00:00:00")
    return root


def graded(root, records, todo, outcome=lambda s: Outcome(s, True, 1.0)):
    """What a run does for each submission: its feedback page, then the record."""
    for student, digest in todo:
        feedback = root / "feedback" / student / NAME
        feedback.mkdir(parents=True, exist_ok=True)
        (feedback / f"{NAME}.html").write_text("page")
        records.keep(student, digest, outcome(student))


class Gradebook:
    def __init__(self, students):
        self.students, self.asked = set(students), 0

    def __call__(self):
        self.asked += 1
        return self.students


def test_a_first_run_grades_everyone_without_opening_the_gradebook(tmp_path):
    root = course(tmp_path)
    book = Gradebook([])
    records, todo, skipped = rerun.plan(root, NAME, ["alice", "bob"], False, book)
    assert [s for s, _ in todo] == ["alice", "bob"] and skipped == [] and book.asked == 0


def test_a_second_run_skips_what_is_unchanged_and_grades_what_changed(tmp_path):
    root = course(tmp_path)
    records, todo, _ = rerun.plan(root, NAME, ["alice", "bob"], False, Gradebook([]))
    graded(root, records, todo)
    book = Gradebook(["alice", "bob"])
    _, todo, skipped = rerun.plan(root, NAME, ["alice", "bob"], False, book)
    assert todo == [] and skipped == ["alice", "bob"] and book.asked == 1
    (root / "submitted" / "bob" / NAME / f"{NAME}.ipynb").write_text('{"by": "bob", "again": true}')
    _, todo, skipped = rerun.plan(root, NAME, ["alice", "bob"], False, book)
    assert [s for s, _ in todo] == ["bob"] and skipped == ["alice"]
    (root / "submitted" / "alice" / NAME / "extra.py").write_text("x = 1")  # a new file counts too
    _, todo, _ = rerun.plan(root, NAME, ["alice", "bob"], False, book)
    assert [s for s, _ in todo] == ["alice", "bob"]


def test_force_and_named_students_grade_again(tmp_path):
    root = course(tmp_path)
    records, todo, _ = rerun.plan(root, NAME, ["alice", "bob"], False, Gradebook([]))
    graded(root, records, todo)
    _, todo, skipped = rerun.plan(root, NAME, ["alice", "bob"], True, Gradebook(["alice", "bob"]))
    assert [s for s, _ in todo] == ["alice", "bob"] and skipped == []


@pytest.mark.parametrize("change", ["source", "feedback", "gradebook", "record", "forget"])
def test_what_makes_a_graded_submission_count_as_missing(tmp_path, change):
    root = course(tmp_path)
    records, todo, _ = rerun.plan(root, NAME, ["alice"], False, Gradebook([]))
    graded(root, records, todo)
    present = ["alice"]
    if change == "source":  # the instructor changed the tests
        (root / "source" / NAME / f"{NAME}.ipynb").write_text('{"source": 2}')
    elif change == "feedback":
        (root / "feedback" / "alice" / NAME / f"{NAME}.html").unlink()
    elif change == "gradebook":  # another (or a new) gradebook
        present = []
    elif change == "record":
        (root / "autograder-logs" / NAME / "graded" / "alice.json").write_text("{not json")
    else:  # a run that started grading alice again and was interrupted
        records.forget("alice")
    _, todo, skipped = rerun.plan(root, NAME, ["alice"], False, Gradebook(present))
    assert [s for s, _ in todo] == ["alice"] and skipped == []


@pytest.mark.parametrize("reason,recorded", [("not_json", True), ("missing", True), ("invalid", True),
                                             ("lost", False), ("crashed", False),
                                             ("a Dask worker failed: OSError: disk full", False)])
def test_only_reasons_that_lie_in_the_submission_are_recorded(tmp_path, reason, recorded):
    root = course(tmp_path)
    records, todo, _ = rerun.plan(root, NAME, ["alice"], False, Gradebook([]))
    graded(root, records, todo, outcome=lambda s: Outcome(s, False, 0.0, reason))
    _, todo, skipped = rerun.plan(root, NAME, ["alice"], False, Gradebook(["alice"]))
    assert skipped == (["alice"] if recorded else [])


def test_grading_locally_does_not_import_distributed():
    code = ("import sys; import autograder.instructor.cli, autograder.instructor.grading.run; "
            "print('distributed' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


# -- walking a folder the student controls (files.Walk) -------------------------------------------
def test_a_walk_names_what_vanished_under_it_instead_of_raising(tmp_path):
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text(name)
    walk = files.Walk(tmp_path)
    seen = []
    for entry in walk:
        seen.append(entry.name)
        if entry.name == "a.txt":
            (tmp_path / "b.txt").unlink()  # listed, not yet looked at
    assert seen == ["a.txt", "c.txt"] and not walk.complete
    assert [(where, "No such file" in why) for where, why in walk.cut] == [("b.txt", True)]


def test_a_folder_swapped_for_a_link_while_walked_is_not_followed(tmp_path):
    (tmp_path / "top" / "sub").mkdir(parents=True)
    (tmp_path / "top" / "zz-notes.txt").write_text("mine")  # (looked at after the folder is)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "secret.txt").write_text("the key")
    walk = files.Walk(tmp_path / "top")
    seen = []
    for entry in walk:
        seen.append(entry.relative)
        if entry.name == "zz-notes.txt":  # the folder was looked at as a folder; now it is a link
            (tmp_path / "top" / "sub").rmdir()
            (tmp_path / "top" / "sub").symlink_to(tmp_path / "elsewhere")
    assert seen == ["zz-notes.txt"] and [where for where, _ in walk.cut] == ["sub"]


def test_a_deep_folder_is_read_without_recursion_and_never_taken_as_unchanged(tmp_path):
    folder = tmp_path / "submitted" / "mallory" / NAME
    folder.mkdir(parents=True)
    (folder / f"{NAME}.ipynb").write_text("the notebook")
    os.close(chain(folder, ["d"] * 1100))
    try:
        found, copied = files.read_regular(folder)
        assert [f[0] for f in found] == [f"{NAME}.ipynb"]
        assert copied.cut == [(os.path.join(*["d"] * (files.MAX_DEPTH + 1)), files.TOO_DEEP)]
        first = rerun.digest(rerun.submitted_files(tmp_path, NAME, "mallory"))
        assert rerun.digest(rerun.submitted_files(tmp_path, NAME, "mallory")) != first
    finally:
        flatten(tmp_path)


@pytest.mark.skipif(os.geteuid() != 0, reason="gives files to other users: needs root")
def test_copy_regular_for_an_owner_takes_only_what_that_user_owns(tmp_path):
    """A folder of daemon's (as nbgrader's submission folders, writable by everyone) where bin
    put a notebook, a folder of its own holding a file of daemon's, and a hard link to a file of
    its own: only daemon's own files are copied; a folder that is not daemon's at all, nothing."""
    daemon, bin_ = pwd.getpwnam("daemon").pw_uid, pwd.getpwnam("bin").pw_uid
    source, target = tmp_path / "source", tmp_path / "target"
    (source / "bins").mkdir(parents=True)
    target.mkdir()
    for name, owner in (("mine.ipynb", daemon), ("replaced.ipynb", bin_), ("bins/planted.txt", daemon),
                        ("theirs.txt", bin_)):
        (source / name).write_text(name)
        os.chown(source / name, owner, -1)
    os.link(source / "theirs.txt", source / "linked.txt")
    os.chown(source / "bins", bin_, -1)
    os.chown(source, daemon, -1)
    copied = files.copy_regular(source, target, owner=daemon)
    assert sorted(p.name for p in target.iterdir()) == ["mine.ipynb"] and not copied.refused
    assert sorted(copied.skipped) == [(name, "owned by 'bin', not by the folder's owner 'daemon'")
                                      for name in ("bins", "linked.txt", "replaced.ipynb", "theirs.txt")]
    os.chown(source, bin_, -1)  # the folder itself replaced by someone else's
    (target / "mine.ipynb").unlink()
    refused = files.copy_regular(source, target, owner=daemon)
    assert refused.refused and list(target.iterdir()) == [] and refused.files == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="gives files to other users: needs root")
def test_a_file_swapped_in_after_it_was_looked_at_is_seen_as_it_is(tmp_path):
    """bin renames a file of its own over daemon's notebook after the walk looked at it (the
    listing said daemon's) and before it is copied: the owner is checked on the open file, so
    bin's is not copied as daemon's."""
    daemon, bin_ = pwd.getpwnam("daemon").pw_uid, pwd.getpwnam("bin").pw_uid
    source, target = tmp_path / "source", tmp_path / "target"
    source.mkdir()
    target.mkdir()
    (source / "mine.ipynb").write_text("DAEMON'S")
    (tmp_path / "bins.ipynb").write_text("BIN'S")
    os.chown(source / "mine.ipynb", daemon, -1)
    os.chown(tmp_path / "bins.ipynb", bin_, -1)
    os.chown(source, daemon, -1)

    def swap(name: str) -> bool:  # called once the entry is looked at, before it is opened
        if name == "mine.ipynb":
            os.replace(tmp_path / "bins.ipynb", source / "mine.ipynb")
        return False

    copied = files.copy_regular(source, target, skip=swap, owner=daemon)
    assert list(target.iterdir()) == [] and copied.files == 0
    assert copied.skipped == [("mine.ipynb", "owned by 'bin', not by the folder's owner 'daemon'")]
