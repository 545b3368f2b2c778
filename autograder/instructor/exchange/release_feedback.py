"""CheckedReleaseFeedback: nbgrader's ``release_feedback``, one student's trouble staying theirs.

nbgrader releases every ``*.html`` in each ``feedback/<student>/<assignment>/`` folder, and for
each opens ``timestamp.txt`` and ``submission_secret.txt`` beside it. Both come from the
student's own submission: a student who deletes ``submission_secret.txt`` from their folder in
``inbound`` (it is theirs to change) makes nbgrader's release stop with ``FileNotFoundError``
at their page, and every student after them in the listing gets no feedback.

Here each page is released on its own: a page whose records are missing, not regular files
or larger than nbgrader ever writes is left unreleased and named in the log, and so is a page
that is not named after one of the assignment's notebooks (nothing else is feedback). The
others are released as nbgrader releases them, under the name the student's ``fetch_feedback``
looks for.
"""
from __future__ import annotations

import glob
import os
import shutil
import stat

from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback
from nbgrader.utils import notebook_hash

MAX_RECORD = 2 ** 16  # bytes: nbgrader's records are a time and a 32-character secret


class Unreleasable(Exception):
    """Why one page is not released."""


def read_record(folder: str, name: str) -> str:
    """A record file beside a page: a small regular file, never read through a link."""
    path = os.path.join(folder, name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise Unreleasable(f"its {name} cannot be read ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_RECORD:
            raise Unreleasable(f"its {name} is not a small regular file")
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(MAX_RECORD + 1)
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unreleasable(f"its {name} is not text") from None


class CheckedReleaseFeedback(ExchangeReleaseFeedback):

    def notebooks(self) -> set:
        """The assignment's notebooks, by name, from its source folder."""
        source = self.coursedir.format_path(self.coursedir.source_directory, ".", self.coursedir.assignment_id)
        return {os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(source, "*.ipynb"))}

    def copy_files(self):
        exclude = set(filter(None, (self.coursedir.student_id_exclude or "").split(",")))
        notebooks = self.notebooks()
        for page in sorted(glob.glob(os.path.join(self.src_path, "*.html"))):
            folder = os.path.dirname(page)
            student = os.path.basename(os.path.dirname(folder))
            notebook = os.path.splitext(os.path.basename(page))[0]
            if student in exclude:
                continue
            try:
                self.release_one(page, folder, student, notebook, notebooks)
            except Unreleasable as why:
                self.log.error("Feedback for student %r not released: %s (%s)", student, why,
                               os.path.relpath(page, self.coursedir.root))

    def release_one(self, page: str, folder: str, student: str, notebook: str, notebooks: set) -> None:
        if notebook not in notebooks:
            raise Unreleasable(f"{notebook!r} is not a notebook of the assignment")
        info = os.lstat(page)
        if not stat.S_ISREG(info.st_mode):
            raise Unreleasable("the page is not a regular file")
        timestamp = read_record(folder, "timestamp.txt").strip()[:64]
        secret = read_record(folder, "submission_secret.txt")
        checksum = notebook_hash(secret=secret, notebook_id=notebook)
        staged = os.path.join(self.dest_path, f"{checksum}-tmp.html")
        self.log.info("Releasing feedback for student %r on assignment '%s/%s/%s' (%r)", student,
                      self.coursedir.course_id, self.coursedir.assignment_id, notebook, timestamp)  # one line
        shutil.copy(page, staged)
        shutil.move(staged, os.path.join(self.dest_path, f"{checksum}.html"))  # atomically, as nbgrader does
