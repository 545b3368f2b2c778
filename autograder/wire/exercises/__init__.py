"""Every exercise, declared once: one module per exercise (``<name>.py``), each holding its
``EXERCISE`` (``spec.Exercise``) and what its scenarios mean: the objects a scenario's data
describes, which the kernel builds to run the student's function on and the judge builds
to recompute the right answer. Modules whose name starts with ``_`` are what several
exercises of a lesson share.

``EXERCISES`` (in lesson order), ``BY_NAME`` and ``CHECKS`` (every function a test cell may
call, the Quick Checks' ``check_choice`` included) are derived from those modules: adding an
exercise adds a module here, and nothing here changes.
"""
from __future__ import annotations

import importlib
import pkgutil

from ..spec import Exercise, select  # noqa: F401  (re-exported)


def _declared() -> list:
    found = []
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            found.append(module.EXERCISE)
    return sorted(found, key=lambda e: (e.lesson, e.letter, e.name))


ALL = _declared()  # the exercises and the Quick Checks' check
EXERCISES = [e for e in ALL if e.lesson]  # the exercises, lesson by lesson, (a), (b), ...
BY_NAME = {e.name: e for e in ALL}
CHECKS = {e.check: e for e in ALL}
