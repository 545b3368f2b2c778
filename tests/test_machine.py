"""The place a Dask run's worker processes of one machine share (``grading.machine``): refused if
anyone else could have made it, and removed by the last process that needs it. Fast: no server
is started here (test_cluster grades with real ones)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from autograder.instructor.grading import machine


@pytest.fixture
def temporary(tmp_path, monkeypatch):
    """A temporary folder of the test's own, as a worker's TMPDIR."""
    monkeypatch.setattr(machine.tempfile, "gettempdir", lambda: str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("squat", ["open folder", "link"])
def test_a_folder_of_the_runs_name_made_by_anyone_else_is_refused(temporary, squat):
    """Its name is known beforehand: a folder left open to others, or a link to another folder,
    in its place could hold a state naming a judge of someone else's."""
    place = machine.Machine("course-run")
    elsewhere = temporary / "elsewhere"
    elsewhere.mkdir()
    if squat == "link":
        place.folder.symlink_to(elsewhere)
    else:
        place.folder.mkdir(mode=0o777)
        os.chmod(place.folder, 0o777)
    with pytest.raises(RuntimeError, match="not a private folder of this user"):
        place.ready(config=None, assignment="a1", check=lambda: None)
    assert list(elsewhere.iterdir()) == [] and not (place.folder / "state.json").exists()


def test_the_run_folder_stays_while_the_servers_owner_lives_and_goes_with_the_last_one(temporary):
    place = machine.Machine("course-run")
    owner = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    servers = temporary / "autograder-run-x"
    servers.mkdir()
    try:
        with place._state() as state:
            state["servers"] = {"folder": str(servers), "sandbox": True, "owner": owner.pid}
        place.enter()
        place.leave()  # another process owns the servers, and lives: it removes the folder when it leaves
        assert not place.course_root().exists() and place.folder.is_dir() and servers.is_dir()
    finally:
        owner.communicate(b"")
    assert json.loads((place.folder / "state.json").read_text())["servers"]["owner"] == owner.pid
    place.leave()  # the owner died without leaving: its servers died with it, and what it left goes
    assert not place.folder.exists() and not servers.exists()
    place.leave()  # (another process after that: nothing left to do, nothing made again)
    assert not place.folder.exists()
