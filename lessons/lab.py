"""How JupyterLab opens the course: the students' view and the instructor's view.

    python -m lessons.lab [--instructor] [--course DIR] [jupyter lab options ...]

Students (``make lab``; Binder through the ``start`` script) get JupyterLab on ``release/``
with nbgrader's Validate button and Assignment List, and nothing of the instructor's:
``lab_config/student`` turns off nbgrader's Create Assignment panel, formgrader and
course list (front-end plugins and server extensions) and JupyterLab's question about
official news. Instructors (``make instructor``) get JupyterLab on the course root with
formgrader open and the Create Assignment panel in the right sidebar.

Both views are a configuration directory put first on ``JUPYTER_CONFIG_PATH`` (in place of
the other view's, e.g. in a Binder terminal); nothing is written into the environment, so one
installation serves both. The instructor's turns on explicitly what the student's turns off,
so it wins over a student configuration installed for everyone (e.g. on a hub).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CONFIG = Path(__file__).resolve().parent / "lab_config"
ROLES = ("student", "instructor")
# the instructor's browser opens on formgrader (nbgrader's plug-in answers to this query)
INSTRUCTOR_URL = "/lab?formgrader=true"


def config_path(role: str, current: str | None = None) -> str:
    """``JUPYTER_CONFIG_PATH`` for a role: its configuration directory first, then the
    ``current`` path without either view's directory."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, not {role!r}")
    ours = {str(CONFIG / r) for r in ROLES}
    rest = [p for p in (current or "").split(os.pathsep) if p and os.path.normpath(p) not in ours]
    return os.pathsep.join([str(CONFIG / role), *rest])


def command(role: str = "student", course: Path = REPO, extra=()) -> tuple[list, dict, Path]:
    """(argv, environment changes, working directory) that start JupyterLab for ``role``.

    The working directory is the course root, where nbgrader finds ``nbgrader_config.py``
    (Validate for students, formgrader for the instructor)."""
    course = Path(course).resolve()
    env = {"JUPYTER_CONFIG_PATH": config_path(role, os.environ.get("JUPYTER_CONFIG_PATH"))}
    argv = [sys.executable, "-m", "jupyter", "lab"]
    if role == "student":
        argv.append(f"--ServerApp.root_dir={course / 'release'}")
    else:
        argv += [f"--ServerApp.root_dir={course}", f"--LabApp.default_url={INSTRUCTOR_URL}"]
    return argv + list(extra), env, course


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m lessons.lab", description=__doc__.splitlines()[0],
                                     epilog="Other options go to jupyter lab, e.g. --port=8889 --no-browser.")
    parser.add_argument("--instructor", action="store_true", help="the instructor's view (formgrader)")
    parser.add_argument("--course", type=Path, default=REPO, help="course directory (default: this repository)")
    args, extra = parser.parse_known_args(argv)
    role = "instructor" if args.instructor else "student"
    command_line, env, cwd = command(role, args.course, extra)
    os.chdir(cwd)
    os.execve(command_line[0], command_line, {**os.environ, **env})


if __name__ == "__main__":
    main()
