"""The shortcuts of ``autograder.instructor.fast_imports`` give what they replace."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_gradebook_head_read_in_process_is_the_one_alembic_prints(tmp_path):
    """nbgrader's own way (``alembic heads`` in a subprocess) and ours name the same revision."""
    asked = subprocess.run([sys.executable, "-c", "from nbgrader.api import get_alembic_version as v; print(v())"],
                           capture_output=True, text=True, check=True, cwd=tmp_path,
                           env={**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]})
    read = subprocess.run([sys.executable, "-c", "from autograder.instructor.fast_imports import "
                           "gradebook_head_in_process as p; p(); from nbgrader import api; print(api.get_alembic_version())"],
                          capture_output=True, text=True, check=True, cwd=tmp_path)
    assert asked.stdout.strip() and read.stdout.strip() == asked.stdout.strip()


def test_a_process_that_reads_the_course_config_makes_a_gradebook_without_alembics_command(tmp_path):
    """The course's ``nbgrader_config.py`` puts the shortcut in every nbgrader command and
    grading worker: with no ``alembic`` on the PATH (nbgrader's way would fail: FileNotFoundError),
    a new gradebook is still made, stamped, and opens again."""
    script = (
        "from traitlets.config.loader import PyFileConfigLoader\n"
        f"PyFileConfigLoader('nbgrader_config.py', path={str(ROOT)!r}).load_config()\n"
        "from nbgrader.api import Gradebook\n"
        f"url = 'sqlite:///{tmp_path}/gradebook.db'\n"
        "with Gradebook(url) as gb: gb.add_student('ada')\n"
        "with Gradebook(url) as gb: print([s.id for s in gb.students])\n"
        "from sqlalchemy import create_engine, text\n"
        "print(create_engine(url).connect().execute(text('SELECT version_num FROM alembic_version')).scalar())\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    students, version = done.stdout.split("\n")[:2]
    assert students == "['ada']" and len(version) == 12, done.stdout


def test_reading_the_course_config_imports_no_nbgrader(tmp_path):
    """``autograder grade`` reads the course's ``nbgrader_config.py`` before it knows whether its
    own process needs nbgrader (its grading workers import it; importing it costs 1.0 s of CPU),
    so the shortcut above waits for nbgrader to be imported; and it is there once it is."""
    script = (
        "import sys\n"
        "from traitlets.config.loader import PyFileConfigLoader\n"
        f"PyFileConfigLoader('nbgrader_config.py', path={str(ROOT)!r}).load_config()\n"
        "print(sorted(m for m in sys.modules if m.partition('.')[0] == 'nbgrader'))\n"
        "from nbgrader import api\n"
        "print(api.get_alembic_version.__module__)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert done.stdout.split("\n")[:2] == ["[]", "autograder.instructor.fast_imports"], done.stdout
