"""How JupyterLab opens the course: the students' view and the instructor's view.

    python -m lessons.lab [--instructor] [--course DIR] [--lang zh] [jupyter lab options ...]

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

The instructor's view also loads this module as a Jupyter server extension: formgrader is a
page of the instructor's own server shown in a frame of their JupyterLab, and JupyterHub (4.1
and later) forbids every frame on a user's server (``frame-ancestors 'none'``), which leaves
formgrader blank (nbgrader issue #1870). The extension lets the server's pages be framed by
its own origin, and changes nothing else of the policy an administrator may have set. That is
safe where each user's server has a host of its own (``c.JupyterHub.subdomain_host``); on a hub
that serves every user from one origin, a page a student serves there could frame the
instructor's, so the server's log then says so.

It also has formgrader's own pages (its ``.tpl`` templates: the students, one student's
assignments and notebooks, the gradebook's lists) escape every value they print. nbgrader
renders them with a Jinja environment that escapes nothing, and prints what the page's address
says (``/formgrader/manage_students/<id>``) into the page and into a script: a link to
``manage_students/<img src=x onerror=...>``, or a student id holding markup in the gradebook,
ran script in the instructor's origin. The page of a submission is nbgrader's formgrade
template, which ``nbgrader_config.py`` replaces (``formgrade_inert``).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

from autograder.messages import LANGUAGES

REPO = Path(__file__).resolve().parent.parent
CONFIG = Path(__file__).resolve().parent / "lab_config"
ROLES = ("student", "instructor")
# the instructor's browser opens on formgrader (nbgrader's plug-in answers to this query)
INSTRUCTOR_URL = "/lab?formgrader=true"


# what the instructor's server allows to frame its pages (formgrader in JupyterLab)
FRAME_ANCESTORS = "frame-ancestors 'self'"


def config_path(role: str, current: str | None = None) -> str:
    """``JUPYTER_CONFIG_PATH`` for a role: its configuration directory first, then the
    ``current`` path without either view's directory."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, not {role!r}")
    ours = {str(CONFIG / r) for r in ROLES}
    rest = [p for p in (current or "").split(os.pathsep) if p and os.path.normpath(p) not in ours]
    return os.pathsep.join([str(CONFIG / role), *rest])


def command(role: str = "student", course: Path = REPO, extra=(), lang: str | None = None) -> tuple[list, dict, Path]:
    """(argv, environment changes, working directory) that start JupyterLab for ``role``,
    with its interface in ``lang`` if given (students: opened on that language's lessons).

    The working directory is the course root, where nbgrader finds ``nbgrader_config.py``
    (Validate for students, formgrader for the instructor)."""
    course = Path(course).resolve()
    env = {"JUPYTER_CONFIG_PATH": config_path(role, os.environ.get("JUPYTER_CONFIG_PATH"))}
    argv = [sys.executable, "-m", "jupyter", "lab"]
    if role == "student":
        argv.append(f"--ServerApp.root_dir={course / 'release'}")
    else:
        argv += [f"--ServerApp.root_dir={course}", f"--LabApp.default_url={INSTRUCTOR_URL}"]
    if lang:  # lessons/lab_language.py
        from lessons.lab_language import server_options
        argv += server_options(lang, course / "release" if role == "student" else None)
    return argv + list(extra), env, course


def frames_from_own_origin(policy: str | None) -> str:
    """A ``Content-Security-Policy`` header value: ``policy`` (or none) with its
    ``frame-ancestors`` directive, if any, replaced by ``frame-ancestors 'self'``."""
    kept = [d.strip() for d in (policy or "").split(";")
            if d.strip() and d.split()[0].lower() != "frame-ancestors"]
    return "; ".join([FRAME_ANCESTORS, *kept])


def shares_the_hubs_origin(environ=os.environ) -> bool:
    """Whether this server runs on a JupyterHub that serves it from the hub's own origin, as it
    serves every other user's (no ``subdomain_host``): then any user's server can frame it."""
    if "JUPYTERHUB_SERVICE_PREFIX" not in environ:
        return False  # not on a hub
    own = urlsplit(environ.get("JUPYTERHUB_PUBLIC_URL", "")).netloc
    hub = urlsplit(environ.get("JUPYTERHUB_PUBLIC_HUB_URL") or environ.get("JUPYTERHUB_HOST", "")).netloc
    return not (own and own != hub)


def _jupyter_server_extension_points():
    return [{"module": "lessons.lab"}]


def _load_jupyter_server_extension(serverapp) -> None:
    """The instructor's server (``lab_config/instructor`` enables this): its pages may be
    framed by its own origin, so that formgrader shows in JupyterLab on a JupyterHub too, and
    formgrader's own pages escape what they print (``escape_formgrader_pages``).

    JupyterHub's single-user extension puts ``frame-ancestors 'none'`` in the headers only if
    there is no policy yet, and extensions load in the order of their names, so whichever of the
    two loads first, the header ends with ``'self'`` and every other directive kept."""
    settings = serverapp.web_app.settings
    headers = dict(settings.get("headers") or {})
    headers["Content-Security-Policy"] = frames_from_own_origin(headers.get("Content-Security-Policy"))
    settings["headers"] = headers
    serverapp.log.info("lessons.lab: this server's pages may be framed by its own origin (formgrader): %s",
                       headers["Content-Security-Policy"])
    escape_formgrader_pages(serverapp)
    if shares_the_hubs_origin():
        serverapp.log.warning(
            "lessons.lab: this JupyterHub serves every user's server from one origin, so a page any "
            "student serves could frame this one and act as you: give each user a host of their own "
            "(c.JupyterHub.subdomain_host), see the README's JupyterHub section")


def escaping(settings: dict) -> None:
    """Formgrader's Jinja environment in a server's ``settings``, made to escape every value its
    pages print (a value in a script's string is then escaped as HTML: no longer the text it
    was, but never markup or code)."""
    env = settings.get("nbgrader_jinja2_env")
    if env is not None and not env.autoescape:
        settings["nbgrader_jinja2_env"] = env.overlay(autoescape=True)


def escape_formgrader_pages(serverapp) -> None:
    """Formgrader's pages escape what they print (``escaping``), whichever of formgrader and this
    extension loads first: formgrader makes its environment when it loads (after this one, as
    extensions load in the order of their names), so its method that makes it is wrapped; if it
    loaded already, its environment is replaced here."""
    try:
        from nbgrader.server_extensions.formgrader.formgrader import FormgradeExtension
    except ImportError:  # no formgrader here: nothing to escape
        return
    make = FormgradeExtension.init_tornado_settings
    if not getattr(make, "escaping", False):
        def init_tornado_settings(self, webapp):
            make(self, webapp)
            escaping(webapp.settings)

        init_tornado_settings.escaping = True
        init_tornado_settings.__doc__ = make.__doc__
        FormgradeExtension.init_tornado_settings = init_tornado_settings
    escaping(serverapp.web_app.settings)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m lessons.lab", description=__doc__.splitlines()[0],
                                     epilog="Other options go to jupyter lab, e.g. --port=8889 --no-browser.")
    parser.add_argument("--instructor", action="store_true", help="the instructor's view (formgrader)")
    parser.add_argument("--course", type=Path, default=REPO, help="course directory (default: this repository)")
    parser.add_argument("--lang", choices=LANGUAGES,
                        help="JupyterLab's interface in this language, opened on its lessons (make lab LANG=zh)")
    args, extra = parser.parse_known_args(argv)
    role = "instructor" if args.instructor else "student"
    command_line, env, cwd = command(role, args.course, extra, args.lang)
    os.chdir(cwd)
    os.execve(command_line[0], command_line, {**os.environ, **env})


if __name__ == "__main__":
    main()
