"""The grader's words, read from ``locale/<lang>.toml`` so a translation never touches code.

The language comes from the ``AUTOGRAD_LESSONS_LANG`` environment variable (default
``en``); a key missing from a translation falls back to English.
"""
from __future__ import annotations

import functools
import os
import tomllib
from pathlib import Path

LOCALE_DIR = Path(__file__).parent / "locale"


@functools.cache
def _catalogue(lang: str) -> dict:
    path = LOCALE_DIR / f"{lang}.toml"
    if not path.exists():
        return {}
    with path.open("rb") as f:
        return tomllib.load(f)


def language() -> str:
    return os.environ.get("AUTOGRAD_LESSONS_LANG", "en")


def text(key: str, **fields) -> str:
    """Return the message ``section.name`` with ``fields`` filled in."""
    section, name = key.split(".", 1)
    template = _catalogue(language()).get(section, {}).get(name)
    if template is None:
        template = _catalogue("en")[section][name]
    return template.format(**fields)
