"""nbgrader's hooks from nbgrader_config.py: links and special files in a submission are moved
aside (never followed), and a student's feedback folder keeps only the feedback pages and
nbgrader's own records of the submission."""
from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest
from deep_folders import chain, flatten, walk
from nbgrader.utils import find_all_files

from autograder.instructor import files
from autograder.instructor.grading import run
from autograder.instructor.passes import hooks
from autograder.instructor.passes.hooks import oversized


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


# -- folders no walk of Python's own gets through (nbgrader's os.walk, Path.rglob) -----------------
def _submitted(tmp_path, student="mallory"):
    folder = tmp_path / "submitted" / student / "a1"
    folder.mkdir(parents=True)
    (folder / "a1.ipynb").write_text("{}")
    return folder


def _entries(top: Path) -> list:
    """Every path beneath ``top`` (relative, links and special files included), without recursion."""
    return sorted(os.path.relpath(os.path.join(here, name), top)
                  for here, dirs, names in walk(top) for name in dirs + names)


def _quarantine(tmp_path, student="mallory") -> Path:
    return tmp_path / "autograder-logs" / "a1" / "quarantine" / student


@pytest.fixture
def flattened(tmp_path):
    yield tmp_path
    flatten(tmp_path)  # (pytest removes old temporary folders with a recursive rmtree)


def test_a_chain_of_1100_folders_is_set_aside_past_16_levels_and_nbgrader_can_copy_the_rest(flattened):
    tmp_path = flattened
    folder = _submitted(tmp_path)
    fd = chain(folder, ["d"] * 1100)
    os.close(os.open("data.csv", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    os.close(fd)
    with pytest.raises(RecursionError):  # what nbgrader's autograde runs on the folder
        find_all_files(str(folder), ["*.ipynb"])
    assert oversized(folder) == []  # the size check run before anyone is graded: no RecursionError
    moved = hooks.quarantine_unsafe_files("a1", "*", [str(folder / "a1.ipynb")])
    assert [str(p) for p in moved] == [os.path.join(*["d"] * (files.MAX_DEPTH + 1))]
    assert find_all_files(str(folder), ["*.ipynb"]) == []  # 16 empty folders: nothing to copy
    assert max(len(Path(p).parts) for p in _entries(folder)) == files.MAX_DEPTH  # 16 levels stay
    kept = _quarantine(tmp_path) / moved[0]  # the rest, whole: 1 083 folders and the file at the bottom
    assert len(_entries(kept)) == 1100 - (files.MAX_DEPTH + 1) + 1
    assert _entries(kept)[-1] == os.path.join(*["d"] * 1083, "data.csv")


def test_a_path_past_1024_characters_is_set_aside(flattened):
    """24 folders of 250-character names: 6 000 characters, past what Linux lets a path name."""
    tmp_path = flattened
    folder = _submitted(tmp_path)
    names = [f"{i:02d}" + "x" * 248 for i in range(24)]
    fd = chain(folder, names)
    os.close(os.open("notes.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    os.close(fd)
    moved = hooks.quarantine_unsafe_files("a1", "*", [str(folder / "a1.ipynb")])
    assert [str(p) for p in moved] == [os.path.join(*names[:5])]  # 1 254 characters; its parent has 1 003
    assert all(len(p) <= files.MAX_PATH for p in _entries(folder))
    assert find_all_files(str(folder), ["*.ipynb"]) == []


@pytest.mark.parametrize("where", ["beside the notebook", "in a folder"])
def test_entries_past_the_walk_and_the_budget_are_set_aside_and_the_notebook_stays(tmp_path, where):
    """2 100 files beside the notebook (whose name sorts last; the walk stops at 2 000 entries
    of the folder), or 2 100 folders in one folder: nbgrader gets the notebook and at most 500
    other entries, and nothing is lost."""
    folder = _submitted(tmp_path)
    (folder / "a1.ipynb").rename(folder / "zz.ipynb")
    for i in range(2100):
        if where == "beside the notebook":
            (folder / f"{i:04d}.txt").write_text("x")
        else:
            (folder / "many" / f"{i:04d}").mkdir(parents=True)
    before = _entries(folder)
    hooks.quarantine_unsafe_files("a1", "*", [str(folder / "zz.ipynb")])
    kept = _entries(folder)
    assert "zz.ipynb" in kept and len(kept) <= files.MAX_FILES + 1
    assert sorted(kept + _entries(_quarantine(tmp_path))) == before


def test_special_files_and_odd_names(tmp_path):
    """A device file that reads forever (shutil.copy would), a socket, a FIFO named like a
    notebook in a folder, a folder named like a notebook: set aside; folders named with a
    newline, terminal escapes, bytes that are not UTF-8: kept, with their files."""
    folder = _submitted(tmp_path)
    os.mknod(folder / "data.csv", stat.S_IFCHR | 0o666, os.makedev(1, 5))
    here = os.getcwd()
    os.chdir(folder)  # (a socket's address holds 108 bytes)
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.bind("s.sock")
    finally:
        os.chdir(here)
    (folder / "sub").mkdir()
    os.mkfifo(folder / "sub" / "a1.ipynb")
    (folder / "notes.ipynb").mkdir()  # (nbgrader would read it as a notebook)
    (folder / "notes.ipynb" / "x.txt").write_text("x")
    odd = ["new\nline\x1b]0;title\x07", os.fsdecode(b"bytes-\xff\xfe")]
    for name in odd:
        (folder / name).mkdir()
        (folder / name / "notes.txt").write_text("mine")
    moved = hooks.quarantine_unsafe_files("a1", "*", [str(folder / "a1.ipynb")])
    assert sorted(map(str, moved)) == ["data.csv", "notes.ipynb", "s.sock", os.path.join("sub", "a1.ipynb")]
    assert sorted(find_all_files(str(folder), ["*.ipynb"])) == sorted(str(folder / n / "notes.txt") for n in odd)
    assert stat.S_ISCHR((_quarantine(tmp_path) / "data.csv").lstat().st_mode)


def test_a_second_run_never_moves_anything_through_a_link_it_set_aside_before(tmp_path):
    """A link set aside in one run, then a folder of that name in the next, holding a FIFO:
    the FIFO goes to a quarantine folder of its own, not through the first link."""
    folder = _submitted(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (folder / "sub").symlink_to(elsewhere)
    assert hooks.quarantine_unsafe_files("a1", "*", [str(folder / "a1.ipynb")]) == [Path("sub")]
    (folder / "sub").mkdir()
    os.mkfifo(folder / "sub" / "pipe")
    assert hooks.quarantine_unsafe_files("a1", "*", [str(folder / "a1.ipynb")]) == [Path("sub", "pipe")]
    assert list(elsewhere.iterdir()) == []
    assert (_quarantine(tmp_path).with_name("mallory.1") / "sub" / "pipe").is_fifo()


def test_only_notebooks_where_nbgrader_reads_them_are_too_large(tmp_path):
    folder = _submitted(tmp_path)
    (folder / "deep").mkdir()
    for place in (folder / "a1.ipynb", folder / "deep" / "old.ipynb"):
        with open(place, "wb") as f:  # sparse: 41 MB on paper
            f.truncate(files.MAX_NOTEBOOK_BYTES + 1)
    assert oversized(folder) == [folder / "a1.ipynb"]


def test_a_submission_whose_folder_cannot_be_set_in_order_is_refused_alone(tmp_path):
    """Whatever goes wrong setting one submission in order (here its quarantine cannot be made:
    autograder-logs is a file) is that submission's failure, with the error for its log."""
    folder = _submitted(tmp_path)
    os.mkfifo(folder / "pipe")
    (tmp_path / "autograder-logs").write_text("not a folder")
    reason, detail = run.refusal(tmp_path, "a1", "mallory")
    assert reason == "unreadable" and "autograder-logs" in detail
    assert run.refusal(tmp_path, "a1", "nobody") == ("", "")  # (no folder: nbgrader says it is missing)
