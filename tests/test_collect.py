"""`nbgrader collect` with the course's configuration (CheckedCollect) on an exchange that
real Unix users wrote into, hostile ones included, against nbgrader's own collect on the same
exchange.

The users are the system accounts every Debian machine has (run as root, which can give a
folder to any of them): ``daemon`` submits honestly; ``bin`` impersonates daemon with a later
time in the name, and backdates a late submission of its own; ``sys`` submits a link to the
instructor's solutions; ``games`` a notebook that is a link to them and a file past nbgrader's
size limit; ``nobody`` a folder with no time in its name.
"""
from __future__ import annotations

import datetime
import os
import pwd
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import ROOT, isolated_env, nbgrader
from nbgrader.utils import parse_utc

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.geteuid() != 0, reason="gives folders to other users: needs root")]

NAME = "03_zeroing_grad"
COURSE = "autograd-lessons"  # nbgrader_config.py's course id


def stamp(when: datetime.datetime) -> str:
    return f"{when:%Y-%m-%d %H:%M:%S.%f} UTC"


def give(path: Path, user: str) -> None:
    """Make ``user`` the owner of ``path`` and of everything in it (links themselves included)."""
    info = pwd.getpwnam(user)
    for here, folders, names in os.walk(path):
        for name in folders + names:
            os.lchown(os.path.join(here, name), info.pw_uid, info.pw_gid)
    os.lchown(path, info.pw_uid, info.pw_gid)


def submission(inbound: Path, user: str, named: str, when: str, files: dict) -> Path:
    """A folder in ``inbound`` named for ``named`` at ``when``, made by ``user``; ``files``
    maps a name to its text, or to a Path the entry is a link to."""
    folder = inbound / f"{named}+{NAME}+{when}+{user}"
    folder.mkdir()
    for name, content in files.items():
        if isinstance(content, Path):
            (folder / name).symlink_to(content)
        else:
            (folder / name).write_text(content)
    give(folder, user)
    return folder


def class_exchange(base: Path, stoppers: bool = True) -> SimpleNamespace:
    """An exchange as the class left it just now, and the instructor's solutions that links
    point at; ``stoppers``: with the two folders that stop nbgrader's own collect (a file past its
    size limit, a name it cannot read)."""
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    solutions = base / "instructor" / "source"
    solutions.mkdir(parents=True)
    (solutions / f"{NAME}.ipynb").write_text("THE SOLUTIONS")
    exchange = base / "exchange"
    inbound = exchange / COURSE / "inbound"
    inbound.mkdir(parents=True)
    inbound.chmod(0o2733)  # as nbgrader makes it: everyone writes, nobody lists
    honest = now - datetime.timedelta(seconds=5)
    backdated = now - datetime.timedelta(days=3)
    submission(inbound, "daemon", "daemon", stamp(honest), {f"{NAME}.ipynb": "DAEMON'S OWN WORK"})
    submission(inbound, "bin", "daemon", stamp(datetime.datetime(2099, 1, 1)), {f"{NAME}.ipynb": "BIN AS DAEMON"})
    submission(inbound, "bin", "bin", stamp(backdated), {f"{NAME}.ipynb": "BIN, LATE", "timestamp.txt": stamp(backdated)})
    link = inbound / f"sys+{NAME}+{stamp(honest)}+sys"
    link.symlink_to(solutions)
    give(link, "sys")
    games = submission(inbound, "games", "games", stamp(honest),
                       {f"{NAME}.ipynb": solutions / f"{NAME}.ipynb", "notes.txt": "games' notes"})
    if stoppers:
        with open(games / "data.bin", "wb") as f:  # sparse: 200 MB on paper, past max_file_size (100 MB)
            f.truncate(200 * 10 ** 6)
        give(games, "games")
        submission(inbound, "nobody", "nobody", "not-a-time", {f"{NAME}.ipynb": "NOBODY"})
    return SimpleNamespace(root=exchange, now=now, honest=honest, backdated=backdated)


def collect(tmp: Path, config: str, stoppers: bool = True) -> tuple:
    """``nbgrader collect`` in a fresh course whose configuration ends with ``config``, on a
    fresh class exchange: (the exchange, the course, what nbgrader printed, its exit code)."""
    exchange = class_exchange(tmp, stoppers)
    course = tmp / "course"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(config)
    done = nbgrader(["collect", NAME, f"--Exchange.root={exchange.root}"], course, isolated_env(tmp / "home"),
                    check=False)
    return exchange, course, done.stdout + done.stderr, done.returncode


def submitted(course: Path, student: str) -> Path:
    return course / "submitted" / student / NAME


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    return collect(tmp_path_factory.mktemp("checked"), "")


def test_each_student_gets_only_what_they_submitted_themselves(checked):
    _, course, log, code = checked
    assert code == 0, log
    assert (submitted(course, "daemon") / f"{NAME}.ipynb").read_text() == "DAEMON'S OWN WORK"
    assert "its name says 'daemon' but it belongs to 'bin'" in log
    assert not submitted(course, "sys").exists() and "it is a link or a file, not a folder" in log
    assert not submitted(course, "nobody").exists() and "no time in its name" in log
    # links are not followed, and a file past nbgrader's max_file_size is not copied
    assert sorted(p.name for p in submitted(course, "games").iterdir()) == ["notes.txt", "timestamp.txt"]
    assert "data.bin not copied (larger than CourseDirectory.max_file_size)" in log
    held = [p for p in course.rglob("*") if p.is_file() and "THE SOLUTIONS" in p.read_text(errors="replace")]
    assert held == []


def test_a_submission_is_as_late_as_its_files(checked):
    """bin's name (and its own timestamp.txt) say three days ago; its files were written now.
    An honest name's time is kept to the microsecond."""
    exchange, course, log, _ = checked
    when = parse_utc((submitted(course, "bin") / "timestamp.txt").read_text())
    assert exchange.now - datetime.timedelta(seconds=60) < when < exchange.now + datetime.timedelta(minutes=10)
    assert "collected as submitted then" in log
    assert parse_utc((submitted(course, "daemon") / "timestamp.txt").read_text()) == exchange.honest


def test_nbgrader_alone_gives_daemons_grade_to_bins_work(tmp_path):
    """The same exchange with nbgrader's own collect: it stops at a name it cannot read, or at
    a file past its size limit, and collects nobody; without those two folders, it takes bin's folder as daemon's
    submission, the solutions behind a link as sys's and games' work, and bin's time as given."""
    plain = '\nc.ExchangeFactory.collect = "nbgrader.exchange.default.collect.ExchangeCollect"\n'
    _, course, log, code = collect(tmp_path / "all", plain)
    assert code != 0 and not (course / "submitted").exists(), log
    exchange, course, log, code = collect(tmp_path / "readable", plain, stoppers=False)
    assert code == 0, log
    assert (submitted(course, "daemon") / f"{NAME}.ipynb").read_text() == "BIN AS DAEMON"
    assert (submitted(course, "sys") / f"{NAME}.ipynb").read_text() == "THE SOLUTIONS"
    assert (submitted(course, "games") / f"{NAME}.ipynb").read_text() == "THE SOLUTIONS"
    assert parse_utc((submitted(course, "bin") / "timestamp.txt").read_text()) == exchange.backdated


def test_a_class_that_shares_one_unix_user_is_told_what_to_set(tmp_path):
    """In containers that all run as one user, every folder is that user's: nothing is
    collected, and the log says which setting is meant for that."""
    inbound = tmp_path / "exchange" / COURSE / "inbound"
    inbound.mkdir(parents=True)
    now = stamp(datetime.datetime.now(datetime.UTC).replace(tzinfo=None))
    for student in ("alice", "bob"):
        submission(inbound, "games", student, now, {f"{NAME}.ipynb": student})
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    done = nbgrader(["collect", NAME, f"--Exchange.root={tmp_path / 'exchange'}"], course,
                    isolated_env(tmp_path / "home"), check=False)
    log = done.stdout + done.stderr
    assert "No submission was collected: every folder belongs to 'games'" in log
    assert "c.ExchangeCollect.check_owner = False" in log and not (course / "submitted").exists()
