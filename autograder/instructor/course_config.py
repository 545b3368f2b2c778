"""The course's nbgrader configuration, read as nbgrader itself reads it.

Every command (``autograder grade``, ``report``, ``export``, ``variants``) and the passes
read the course through these: ``course_config`` (nbgrader's files, the course's own last),
``setting`` (one of ``CourseDirectory``'s folders, or nbgrader's default), and the SQLite
gradebook's URL with a wait for other writers (``sqlite_with_timeout``).
"""
from __future__ import annotations

from pathlib import Path


def sqlite_with_timeout(db_url: str) -> str:
    """Let SQLite writers wait for each other instead of failing with 'database is locked'."""
    if db_url.startswith("sqlite:") and "timeout=" not in db_url:
        return db_url + ("&" if "?" in db_url else "?") + "timeout=120"
    return db_url


def course_config(root: Path, db_url: str | None = None, timeout: int | None = None, sandbox: bool = True):
    """The configuration nbgrader itself would use in ``root``: every ``nbgrader_config.py`` on
    Jupyter's config path (system, environment, the instructor's ~/.jupyter: the nearer wins),
    then the course's own, which wins over all of them."""
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config import Config
    from traitlets.config.loader import ConfigFileNotFound, PyFileConfigLoader

    config = Config()
    for folder in [*reversed(jupyter_config_path()), str(root)]:
        try:
            config.merge(PyFileConfigLoader("nbgrader_config.py", path=folder).load_config())
        except ConfigFileNotFound:
            continue
    config.CourseDirectory.root = str(root)
    if db_url:
        config.CourseDirectory.db_url = db_url
    if "db_url" not in config.CourseDirectory:  # nbgrader's own default
        config.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}"
    config.CourseDirectory.db_url = sqlite_with_timeout(config.CourseDirectory.db_url)
    config.JudgedExecute.sandbox = sandbox
    if timeout:
        config.JudgedExecute.timeout = timeout
    return config


def setting(config, name: str, default: str) -> str:
    """``CourseDirectory.<name>`` from nbgrader's configuration, or nbgrader's default."""
    section = config.CourseDirectory
    return section[name] if name in section else default
