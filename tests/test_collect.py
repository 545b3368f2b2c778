"""`nbgrader collect` with the course's configuration (CheckedCollect) on an exchange that
real Unix users wrote into, hostile ones included, against nbgrader's own collect on the same
exchange.

The users are the system accounts every Debian machine has (run as root, which can give a
folder to any of them): ``daemon`` submits honestly; ``bin`` impersonates daemon with a later
time in the name, and backdates a late submission of its own; ``sys`` submits a link to the
instructor's solutions; ``games`` a notebook that is a link to them and a file past nbgrader's
size limit; ``nobody`` a folder with no time in its name; ``lp`` submits, and ``mail``, who
learnt the name of lp's folder (nbgrader makes it writable by everyone), replaces lp's notebook
with hers and plants a folder and a hard link of her own in it; ``uucp`` submits 1 100 nested
folders and a path past what Linux can name; ``proxy`` a device file, a FIFO, a socket and
names with escapes, newlines and bytes that are not UTF-8. A class that shares one Unix user
(``check_owner`` off) names its students with its folders: ids that are not plain, and a
student who dodges the late rule with 2 001 folders, are in ``shared``.
"""
from __future__ import annotations

import datetime
import os
import pwd
import shutil
import socket
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest
from deep_folders import chain, flatten, walk
from helpers import ROOT, isolated_env, nbgrader
from nbgrader.utils import parse_utc

from autograder.instructor import files

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
    planted_in(submission(inbound, "lp", "lp", stamp(honest), {f"{NAME}.ipynb": "LP'S OWN WORK", "helper.py": "lp"}))
    if stoppers:
        hostile_folders(submission(inbound, "uucp", "uucp", stamp(honest), {f"{NAME}.ipynb": "UUCP'S OWN WORK"}))
        odd_entries(submission(inbound, "proxy", "proxy", stamp(honest), {f"{NAME}.ipynb": "PROXY'S OWN WORK"}))
        with open(games / "data.bin", "wb") as f:  # sparse: 200 MB on paper, past max_file_size (100 MB)
            f.truncate(200 * 10 ** 6)
        give(games, "games")
        submission(inbound, "nobody", "nobody", "not-a-time", {f"{NAME}.ipynb": "NOBODY"})
    return SimpleNamespace(root=exchange, now=now, honest=honest, backdated=backdated)


def planted_in(folder: Path) -> None:
    """What mail, a classmate who learnt the folder's name, puts in it: her own notebook in
    place of the owner's, a folder of hers holding a file of the owner's, and a hard link to a
    file of hers."""
    mail = pwd.getpwnam("mail")
    (folder / f"{NAME}.ipynb").unlink()
    (folder / f"{NAME}.ipynb").write_text("MAIL AS LP")
    (folder / "mails").mkdir()
    (folder / "mails" / "data.csv").write_text("1,2")
    give(folder / "mails" / "data.csv", "lp")
    (folder.parent / "mail-notes.txt").write_text("MAIL'S NOTES")
    os.link(folder.parent / "mail-notes.txt", folder / "notes.txt")
    for path in (folder / f"{NAME}.ipynb", folder / "mails", folder / "notes.txt"):
        os.lchown(path, mail.pw_uid, mail.pw_gid)


def hostile_folders(folder: Path) -> None:
    """1 100 nested folders with a file at the bottom, and 24 of 250-character names (6 000
    characters of path): os.walk, Path.rglob and shutil.copytree raise on the first."""
    for names in (["d"] * 1100, [f"{i:02d}" + "x" * 248 for i in range(24)]):
        fd = chain(folder, names)
        os.close(os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
        os.close(fd)
    uucp = pwd.getpwnam("uucp")
    for here, folders, names in walk_by_descriptor(folder):
        for name in folders + names:
            os.chown(name, uucp.pw_uid, uucp.pw_gid, dir_fd=here, follow_symlinks=False)


def walk_by_descriptor(folder: Path):
    """(open folder, folders, other names) beneath ``folder``, without recursion or paths."""
    stack = [os.open(folder, os.O_RDONLY | os.O_DIRECTORY)]
    while stack:
        here = stack.pop()
        with os.scandir(here) as listing:
            entries = list(listing)
        folders = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
        yield here, folders, [e.name for e in entries if not e.is_dir(follow_symlinks=False)]
        stack += [os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=here) for name in folders]
        os.close(here)


ODD = ("new\nline\x1b]0;title\x07", "escape-\x1b[2J", os.fsdecode(b"bytes-\xff\xfe"))


def odd_entries(folder: Path) -> None:
    """A device file that reads forever (/dev/zero's numbers) named like data, a FIFO named
    like the notebook in a folder, a socket, and folders whose names hold escapes, a newline or
    bytes that are not UTF-8, each with a file."""
    os.mknod(folder / "data.csv", stat.S_IFCHR | 0o666, os.makedev(1, 5))
    (folder / "sub").mkdir()
    os.mkfifo(folder / "sub" / f"{NAME}.ipynb")
    here = os.getcwd()
    os.chdir(folder)  # (a socket's address holds 108 bytes)
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.bind("s.sock")
    finally:
        os.chdir(here)
    for name in ODD:
        (folder / name).mkdir()
        (folder / name / "notes.txt").write_text("proxy's")
    give(folder, "proxy")


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
    tmp = tmp_path_factory.mktemp("checked")
    yield collect(tmp, "")
    flatten(tmp)  # (pytest removes old temporary folders with a recursive rmtree)


def test_each_student_gets_only_what_they_submitted_themselves(checked):
    _, course, log, code = checked
    assert code == 0, log
    assert (submitted(course, "daemon") / f"{NAME}.ipynb").read_text() == "DAEMON'S OWN WORK"
    assert "its name says 'daemon' but it belongs to 'bin'" in log
    assert not submitted(course, "sys").exists() and "it is a link or a file, not a folder" in log
    assert not submitted(course, "nobody").exists() and "no time in its name" in log
    # links are not followed, and a file past nbgrader's max_file_size is not copied
    assert sorted(p.name for p in submitted(course, "games").iterdir()) == ["notes.txt", "timestamp.txt"]
    assert "'data.bin' not copied (larger than CourseDirectory.max_file_size)" in log
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
    assert (submitted(course, "lp") / f"{NAME}.ipynb").read_text() == "MAIL AS LP"
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


def test_only_what_the_folders_owner_owns_is_collected(checked):
    """lp's folder, where mail replaced the notebook and planted a folder and a hard link of her
    own: lp's own file is collected, and the log names each of mail's, and whose it is."""
    _, course, log, _ = checked
    assert sorted(p.name for p in submitted(course, "lp").iterdir()) == ["helper.py", "timestamp.txt"]
    for name in (f"{NAME}.ipynb", "mails", "notes.txt"):
        assert f"{name!r} not copied (owned by 'mail', not by the folder's owner 'lp')" in log, name
    held = [p for p in course.rglob("*") if p.is_file() and "MAIL" in p.read_text(errors="replace")]
    assert held == []


def test_deep_and_odd_folders_cost_their_owner_only(checked):
    """uucp's 1 100 nested folders and 6 000-character path, proxy's device file, FIFO, socket
    and odd names: their notebooks are collected, what no walk should go into is not, their time
    is the time in their names (their files were all written then), and the log names what was
    left out in words a terminal only prints."""
    exchange, course, log, code = checked
    assert code == 0, log
    for student in ("uucp", "proxy"):
        assert (submitted(course, student) / f"{NAME}.ipynb").read_text() == f"{student.upper()}'S OWN WORK"
        assert parse_utc((submitted(course, student) / "timestamp.txt").read_text()) == exchange.honest
    uucp = submitted(course, "uucp")
    assert max(len(Path(here).relative_to(uucp).parts) for here, _, _ in walk(uucp)) == files.MAX_DEPTH + 1
    assert not [name for _, _, names in walk(uucp) for name in names if name == "deep.txt"]
    assert "folders nested more than 16 deep: not looked into" in log and "its files could not all be dated" in log
    assert "its path is longer than 1024 characters" in log
    proxy = submitted(course, "proxy")
    assert sorted(p.name for p in proxy.iterdir()) == sorted([f"{NAME}.ipynb", "sub", "timestamp.txt", *ODD])
    assert all((proxy / name / "notes.txt").read_text() == "proxy's" for name in ODD) and not any((proxy / "sub").iterdir())
    for name in ("data.csv", "s.sock", f"sub/{NAME}.ipynb"):
        assert f"{name!r} not copied (special file)" in log, name
    assert not any(char in log for char in "\x1b\x07"), "the log holds the names' escapes as they are"


def rewrite_after(path: Path, folder: Path) -> int:
    """Write ``path`` again until its change time is past that of everything in ``folder``
    (the kernel's clock moves every few milliseconds): its new ctime, in nanoseconds."""
    latest = max(os.lstat(os.path.join(here, name)).st_ctime_ns
                 for here, folders, names in os.walk(folder) for name in [".", *folders, *names])
    while True:
        path.write_text("REWRITTEN AFTER THE DUE DATE")
        if path.stat().st_ctime_ns > latest:
            return path.stat().st_ctime_ns


REFUSED_IDS = ("<img src=x onerror=alert(1)>", "mallory,10,10", '=HYPERLINK("x.invalid")', "-2+3", "a+b",
               "_under", "x" * 65, "ålice", "new\nline", "\x1b[2Jzz")


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """A class that shares one Unix user (check_owner off: the folder's name is the student's
    id) and no tolerance: ids that are not plain, two honest students, and carol and dan who
    submit on time and rewrite their notebook afterwards, carol beside 2 001 empty folders (the
    walk dates 2 000 entries), dan beside 10."""
    tmp = tmp_path_factory.mktemp("shared")
    inbound = tmp / "exchange" / COURSE / "inbound"
    inbound.mkdir(parents=True)
    when = stamp(datetime.datetime.now(datetime.UTC).replace(tzinfo=None))
    for student in (*REFUSED_IDS, "alice", "bob.smith@uni.example"):
        (inbound / f"{student}+{NAME}+{when}+x").mkdir()
        (inbound / f"{student}+{NAME}+{when}+x" / f"{NAME}.ipynb").write_text(student)
    rewritten = {}
    for student, folders in (("carol", 2001), ("dan", 10)):
        folder = inbound / f"{student}+{NAME}+{when}+x"
        folder.mkdir()
        (folder / f"{NAME}.ipynb").write_text("ON TIME")
        for i in range(folders):
            (folder / f"{i:04d}").mkdir()
        rewritten[student] = rewrite_after(folder / f"{NAME}.ipynb", folder)
    course = tmp / "course"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    with open(course / "nbgrader_config.py", "a") as f:
        f.write("\nc.ExchangeCollect.check_owner = False\nc.CheckedCollect.tolerance = 0\n")
    done = nbgrader(["collect", NAME, f"--Exchange.root={tmp / 'exchange'}"], course, isolated_env(tmp / "home"),
                    check=False)
    return SimpleNamespace(course=course, log=done.stdout + done.stderr, code=done.returncode, rewritten=rewritten)


def test_an_id_that_is_not_plain_is_refused_and_the_rest_collected(shared):
    assert shared.code == 0, shared.log
    assert sorted(p.name for p in (shared.course / "submitted").iterdir()) == [
        "alice", "bob.smith@uni.example", "carol", "dan"]
    for student in REFUSED_IDS:
        assert f"its student id {student!r} is refused: " in shared.log, student
    assert "longer than 64 characters" in shared.log and "not a plain identifier" in shared.log
    assert "\x1b" not in shared.log and "new\nline" not in shared.log  # (as Python writes them)


def test_a_folder_too_large_to_date_is_never_on_time(shared):
    """carol's notebook, rewritten after the time in her folder's name, beside 2 001 folders (the
    walk dates 2 000 entries): before, she was collected at the time of the 2 000 she had made on
    time; now a folder too large to date is taken as changed when it is collected. dan's, beside
    10 folders, is dated by its notebook's own change, to the microsecond."""
    carol = parse_utc((submitted(shared.course, "carol") / "timestamp.txt").read_text())
    dan = parse_utc((submitted(shared.course, "dan") / "timestamp.txt").read_text())
    assert carol >= utc_ns(shared.rewritten["carol"])
    assert abs(dan - utc_ns(shared.rewritten["dan"])) <= datetime.timedelta(microseconds=1)
    assert "'carol+" in shared.log and "its files could not all be dated" in shared.log
    assert (submitted(shared.course, "carol") / f"{NAME}.ipynb").read_text() == "REWRITTEN AFTER THE DUE DATE"


def utc_ns(nanoseconds: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(nanoseconds / 1e9, datetime.UTC).replace(tzinfo=None)
