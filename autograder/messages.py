"""The grader's words, read from ``locale/<lang>.toml`` so a translation never touches code.

The language comes from the ``AUTOGRAD_LESSONS_LANG`` environment variable (default
``en``); a key missing from a translation falls back to English. The ``lessons``
package reads its own locale folder through the same class.

Each exercise keeps its own words in its folder, ``autograder/exercises/<name>/locale/<lang>.toml``:
its table ``[grader]`` is read into the grader's messages and ``[lessons]`` into the lessons'
(``[grader.backward]`` gives the keys ``backward.*``, ``[lessons.hints.derivative]`` the keys
``hints.derivative.*``), so a key, and every message a student sees, is the same wherever it
is written. A key written twice, in two files, is an error, not an override.

A message that depends on a number is a table of its plural forms, chosen by the field
``count`` with the language's rule (``plural``): ``{one = "…", other = "…"}`` (Chinese needs
``other`` only; French says "one" of 0 and 1), so no message reads "time(s)".
"""
from __future__ import annotations

import functools
import os
import tomllib
from pathlib import Path

# The languages the course is written in. A language comes from places a student controls (a
# notebook's metadata, the environment of their own kernel), so it is only ever one of these
# codes: anything else is English, never a path, a format or a size.
NAMES = {"en": "English", "es": "Español", "pt": "Português (Brasil)", "zh": "中文（简体）",
         "fr": "Français", "sv": "Svenska"}  # each language's name in itself
LANGUAGES = tuple(NAMES)


def known(lang) -> str:
    """``lang`` if it is one of ``LANGUAGES``, else ``"en"``."""
    return lang if isinstance(lang, str) and lang in LANGUAGES else "en"


def notebook_language(nb) -> str:
    """The language a notebook's student reads: ``autograd_lessons.language`` in its metadata
    if that is one of ``LANGUAGES``, else English (the metadata is the student's to write).
    ``nb``: the notebook, as nbformat's node or plain JSON data."""
    metadata = nb.get("metadata") if isinstance(nb, dict) else None
    settings = metadata.get("autograd_lessons") if isinstance(metadata, dict) else None
    return known(settings.get("language") if isinstance(settings, dict) else None)


def language() -> str:
    """The reader's language: AUTOGRAD_LESSONS_LANG when set (the grader sets it from the
    notebook), else the language of the notebook this kernel runs (its metadata), else English."""
    return known(os.environ.get("AUTOGRAD_LESSONS_LANG") or _notebook_language())


@functools.cache
def _notebook_language() -> str | None:
    """``autograd_lessons.language`` of the notebook this kernel serves: the one named by
    JupyterLab (JPY_SESSION_NAME), else the notebooks in the working folder if they agree."""
    import glob
    import json

    session = os.environ.get("JPY_SESSION_NAME")
    if session:
        candidates = [session, os.path.join(os.getcwd(), os.path.basename(session))]
    else:
        candidates = sorted(glob.glob(os.path.join(os.getcwd(), "*.ipynb")))
    found = set()
    for path in candidates:
        try:
            with open(path, encoding="utf-8") as f:
                found.add(json.load(f).get("metadata", {}).get("autograd_lessons", {}).get("language"))
        except (OSError, ValueError, AttributeError):
            continue
        if session:
            break
    found.discard(None)
    return found.pop() if len(found) == 1 else None


def plural(lang: str, count) -> str:
    """The plural form ("one" or "other") of ``count`` in ``lang`` (CLDR's rules for the
    course's languages)."""
    try:
        n = abs(float(count))
    except (TypeError, ValueError, OverflowError):  # (an int past a float's range: 10**400)
        return "other"
    if lang == "zh":
        return "other"
    if lang in ("fr", "pt"):  # 0 and 1 (and 1.5) take the singular
        return "one" if n < 2 else "other"
    return "one" if n == 1 else "other"


def choose(template, lang: str, fields: dict):
    """A template, or its plural form for ``fields["count"]`` when it is a table of forms."""
    if isinstance(template, dict) and "other" in template:
        return template.get(plural(lang, fields.get("count")), template["other"])
    return template


EXERCISES = Path(__file__).parent / "exercises"  # each exercise's folder, with its locale/


def _load(path: Path) -> dict:
    if not path.exists():
        return {}
    with path.open("rb") as f:
        return tomllib.load(f)


def _is_entry(node) -> bool:
    """A message: a text, or a table of its plural forms."""
    return not isinstance(node, dict) or "other" in node


def merge(into: dict, more: dict, where: str, path: str = "") -> None:
    """Add the keys of ``more`` to ``into``, table by table; a message both have is an error."""
    for key, value in more.items():
        full = f"{path}.{key}" if path else key
        if key in into and (_is_entry(value) or _is_entry(into[key])):
            raise ValueError(f"{where}: {full} is already defined")
        if isinstance(into.get(key), dict):
            merge(into[key], value, where, full)
        else:
            into[key] = value


class Messages:
    """Message templates of one package, looked up as ``section.name``: its locale folder's, and
    the table ``namespace`` of every exercise's locale file (none without a namespace)."""

    def __init__(self, locale_dir: Path, namespace: str = ""):
        self.locale_dir = Path(locale_dir)
        self.namespace = namespace

    @functools.cache
    def catalogue(self, lang: str) -> dict:
        if lang not in LANGUAGES:
            return {}
        found = _load(self.locale_dir / f"{lang}.toml")
        for path in sorted(EXERCISES.glob(f"*/locale/{lang}.toml")) if self.namespace else ():
            merge(found, _load(path).get(self.namespace, {}), str(path.relative_to(EXERCISES.parent)))
        return found

    def raw(self, key: str, lang: str | None = None):
        """The entry at ``key`` (a string, list or table) in the reader's language."""
        node_lang, node_en = self.catalogue(known(lang) if lang else language()), self.catalogue("en")
        for part in key.split("."):
            node_lang = node_lang.get(part) if isinstance(node_lang, dict) else None
            node_en = node_en[part]
        return node_lang if node_lang is not None else node_en

    def text(self, key: str, **fields) -> str:
        """The message at ``key`` with ``fields`` filled in (its plural form for ``count``)."""
        return choose(self.raw(key), language(), fields).format(**fields)


# Sections for the instructor only, in English until someone translates them: a translation
# need not have them (every language falls back to English, key by key).
ENGLISH_ONLY = ("cli", "report")

_GRADER = Messages(Path(__file__).parent / "locale", "grader")
text = _GRADER.text


def has(key: str) -> bool:
    """Whether the grader's (English) messages have an entry ``key`` (a text, or its plural forms)."""
    try:
        entry = _GRADER.raw(key, "en")
    except (KeyError, TypeError):
        return False
    return isinstance(entry, str) or isinstance(entry, dict) and "other" in entry


MAX_NESTING = 3  # a message in a field of a message in a field of a message, no deeper
MAX_MESSAGE = 20_000  # characters of a rendered message (the longest template has 508, each field a few hundred)


def render(key: str, fields: dict, lang: str | None = None) -> str:
    """A verdict's message: ``key`` filled with ``fields``, where a field may itself be a
    message (``{"$key": ..., "fields": ...}``). Keys and fields can come from an untrusted
    process: an unknown key, a field that does not fit its template (a number past a
    float's range for a plural or a ``:g``, a key that is not a string, messages nested
    past ``MAX_NESTING``) gives the generic "malformed" message instead of an error; a message
    longer than ``MAX_MESSAGE`` is cut there."""
    try:
        text = _render(key, fields, lang, 0)
        return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "…"
    except Exception:  # noqa: BLE001  (whatever the fields make a template raise: OverflowError, RecursionError, ...)
        if key == "judge.malformed":
            raise
        return render("judge.malformed", {}, lang)


def _render(key: str, fields: dict, lang: str | None, depth: int) -> str:
    if depth > MAX_NESTING or not isinstance(fields, dict):
        raise ValueError("not a message")
    values = {name: _render(v["$key"], v.get("fields", {}), lang, depth + 1)
              if isinstance(v, dict) and "$key" in v else v for name, v in fields.items()}
    template = choose(_GRADER.raw(key, lang), known(lang) if lang else language(), values)
    if not isinstance(template, str):
        raise KeyError(key)
    return template.format(**values)
