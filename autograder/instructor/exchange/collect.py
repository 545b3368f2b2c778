"""CheckedCollect: nbgrader's ``collect``, taking from ``inbound`` only what each student really submitted.

nbgrader's own collect reads the student id and the submission time from a folder's *name*,
which any student can choose (``inbound`` is writable by every user), and then:

* takes the newest folder per student id and only *warns* when its owner is someone else:
  a classmate who writes ``alice+<assignment>+2099-01-01 00:00:00 UTC+x`` replaces Alice's
  submission with theirs;
* trusts the time in the name and the ``timestamp.txt`` inside: a student who names a late
  submission with a time before the due date escapes the late penalty;
* follows links: a folder, or a notebook, that is a link to a file the instructor can read
  (the solutions in ``source/``) is copied as that student's work, and its answers come back
  to them in their feedback;
* stops the whole collect at one folder whose name it cannot parse.

Here each folder in ``inbound`` is looked at with ``lstat`` first. It is collected only when
its name gives a plain student id (``student_ids``: with ``check_owner`` off the name is all
there is to the id, and ids reach pages, files and CSV exports), when it is a real folder (not
a link) owned by the student its name gives (unless ``ExchangeCollect.check_owner`` is off),
with a time in its name. Its time is when its files last changed (their ``ctime``, which no
user can set back) whenever that is more than ``tolerance`` seconds after the time in its
name, or the name's time is in the future. A folder too large to date whole (``files.Walk``:
more than ``MAX_ENTRIES`` entries, deeper than ``files.MAX_DEPTH``, a folder it cannot read)
is taken as changed when it is collected, never earlier; and every file copied is dated
again once read, so what is collected is always what was dated. Only its regular files are
copied (``files.copy_regular``: never through a link, within nbgrader's ``max_file_size``
and ``max_dir_size``, and, with ``check_owner``, only those the folder's owner owns: nbgrader
makes every submission folder writable by everyone, so a classmate who learns its name could
put a notebook of their own in it), and the ``timestamp.txt`` beside them is the time
decided here. Every folder passed over, and every file not copied, is named in the log with
the reason; the others are collected as usual.

Copying an exchange elsewhere resets its change times: collect before you move it.
"""
from __future__ import annotations

import datetime
import fnmatch
import os
import pwd
import shutil
import stat
import time

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import parse_utc
from traitlets import Integer

from .. import files, student_ids

# How many entries of one submission are looked at to find when its files last changed.
MAX_ENTRIES = files.MAX_ENTRIES
PASSED_OVER = datetime.datetime.min
LOGGED = 20  # files not copied named in the log per submission, before "and N more"


class CheckedCollect(ExchangeCollect):
    tolerance = Integer(120, config=True,
                        help="Seconds a submission's files may have changed after the time in its name "
                             "(nbgrader writes the name first, then copies the files)")

    def init_src(self):
        self._passed_over: list = []
        super().init_src()
        self.src_records = [record for record in self.src_records if "passed_over" not in record]
        for name, why, _ in self._passed_over:
            self.log.warning("Not collected: %r, %s", name, why)
        owners = {owner for _, _, owner in self._passed_over}
        if self._passed_over and not self.src_records and len(owners) == 1 and None not in owners:
            self.log.error("No submission was collected: every folder belongs to %r, not to the student its name "
                           "gives. If your students share that one Unix user (as in containers that all run as "
                           "one user), set c.ExchangeCollect.check_owner = False.", owners.pop())

    def _path_to_record(self, path):
        """nbgrader's record of one folder of ``inbound``, its time checked; a folder that
        cannot be collected gets a record of its own (never one of a student's)."""
        name = os.path.basename(path)
        try:
            username, named, owner = self._check(path, name)
            changed = self._changed(path, name)
        except (ValueError, OSError) as why:  # _NotTheirs too: it names the folder's owner
            self._passed_over.append((name, str(why), getattr(why, "owner", None)))
            return {"username": "\0" + name, "filename": name, "timestamp": PASSED_OVER, "passed_over": True}
        return {"username": username, "filename": name, "named": named, "changed": changed, "owner": owner,
                "timestamp": self._time(name, named, changed)}

    def _check(self, path: str, name: str) -> tuple:
        """(student id, the time in its name, the uid it must belong to or None)."""
        parts = name.rsplit("+", 3)
        if len(parts) < 3 or not parts[0]:
            raise ValueError("its name is not <student>+<assignment>+<time>")
        username = parts[0]
        refused = student_ids.refusal(username)
        if refused:
            raise ValueError(f"its student id {username!r} is refused: {refused}")
        try:
            named = parse_utc(parts[2])
        except (ValueError, OverflowError, TypeError):
            raise ValueError("no time in its name") from None
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            raise ValueError("it is a link or a file, not a folder")
        if self.check_owner:
            owner = _owner(info.st_uid)
            if owner != username:
                raise _NotTheirs(f"its name says {username!r} but it belongs to {owner!r}", owner)
        return username, named, info.st_uid if self.check_owner else None

    def _changed(self, path: str, name: str) -> datetime.datetime:
        """When its files last changed; now if the folder is too large to date whole."""
        seconds, undated = dating(path)
        if undated:
            self.log.warning("%r: its files could not all be dated (%s): taken as changed now", name, undated)
        return _utc(seconds)

    def _time(self, name: str, named: datetime.datetime, changed: datetime.datetime) -> datetime.datetime:
        now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        slack = datetime.timedelta(seconds=self.tolerance)
        if changed > named + slack or named > now + slack:
            self.log.warning("%r: its name gives %s, its files last changed at %s: collected as submitted then",
                             name, named, changed)
            return changed
        return named

    def do_copy(self, src, dest, log=None):
        """The submission's regular files (with ``check_owner``: its owner's only), never
        through a link, within nbgrader's size limits, and the time decided here as its
        ``timestamp.txt``. Whatever goes wrong with one submission passes over it alone."""
        name = os.path.basename(src)
        record = next(r for r in self.src_records if r["filename"] == name)
        os.makedirs(dest)
        try:
            copied = self._copy(src, dest, record["owner"])
            if copied.refused:
                raise ValueError(f"it changed while it was collected: it is now {copied.refused}")
            self._log_skipped(name, copied.skipped)
            changed = _utc(time.time() if copied.cut else copied.changed)
            timestamp = record["timestamp"]
            if changed > record["changed"]:
                timestamp = self._time(name, record["named"], changed)
            with open(os.path.join(dest, "timestamp.txt"), "w") as out:
                out.write(timestamp.strftime("%Y-%m-%d %H:%M:%S.%f") + " UTC")
        except ValueError as why:
            shutil.rmtree(dest, ignore_errors=True)  # made above, holding only what was copied
            self.log.warning("Not collected: %r, %s", name, why)
        except Exception as why:  # noqa: BLE001  (said in the log; the other submissions are collected)
            shutil.rmtree(dest, ignore_errors=True)
            self.log.error("Not collected: %r, %s: %s", name, type(why).__name__, why)

    def _copy(self, src: str, dest: str, owner: int | None) -> files.Copied:
        ignore, include = self.coursedir.ignore, self.coursedir.include

        def skip(relative: str) -> bool:
            base = os.path.basename(relative)
            if relative == "timestamp.txt" or any(fnmatch.fnmatch(base, g) for g in ignore):
                return True
            return bool(include) and not any(fnmatch.fnmatch(base, g) for g in include)

        return files.copy_regular(src, dest, skip=skip, max_bytes=1000 * self.coursedir.max_dir_size,
                                  max_file=1000 * self.coursedir.max_file_size, owner=owner)

    def _log_skipped(self, name: str, skipped: list) -> None:
        for relative, why in skipped[:LOGGED]:
            if why == files.TOO_LARGE:
                why = "larger than CourseDirectory.max_file_size"
            self.log.warning("%r: %r not copied (%s)", name, relative, why)
        if len(skipped) > LOGGED:
            self.log.warning("%r: and %d more not copied", name, len(skipped) - LOGGED)


class _NotTheirs(ValueError):
    """A folder named for one student and owned by another user (``owner``)."""

    def __init__(self, why: str, owner: str):
        super().__init__(why)
        self.owner = owner


def dating(path: str) -> tuple:
    """(when anything in the folder ``path`` last changed, "") from its entries' ``ctime``
    (which a user cannot set), never through a link; (now, why) when the folder cannot be
    walked whole (``files.Walk``): what was not looked at may have changed last."""
    walk = files.Walk(path)
    for _ in walk:
        pass
    if walk.complete:
        return walk.changed, ""
    where, why = walk.cut[0]
    return time.time(), f"{where!r}: {why}"


def last_change(path: str) -> float:
    """When anything in the folder ``path`` last changed: now, at the latest (``dating``)."""
    return dating(path)[0]


def _utc(seconds: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).replace(tzinfo=None)


def _owner(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"
