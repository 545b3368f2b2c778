"""English left on a student's screen: the words of a text, read in one language, that are English.

A word is English when the course's own English uses it (its messages, hints and lessons,
nbgrader's and IPython's words on the feedback page, JupyterLab's words on a student's screens:
``english_vocabulary``) and it is not one of the words the glossary keeps in English, in every
language or in this one, nor a word this language shares with English (``lessons/locale/
glossary.toml``, ``[english]``). Code is not prose: what is in backticks, a placeholder, a formula
(``out = self * other``), an identifier (``loss.item()``, ``v_grad_before``, ``MulBackward0``), an
address or a tag is left out; so are words of one letter. A word is letters only (``l'étape`` is
``l`` and ``étape``), and only a word of ASCII letters can be English.
"""
from __future__ import annotations

import functools
import json
import re
import tomllib
from pathlib import Path

import nbformat

from autograder.messages import _GRADER
from lessons.text import _LESSONS

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "lessons" / "locale" / "glossary.toml"
# each package's messages: its locale folder's and its part of every exercise's locale files
CATALOGUES = {"autograder": _GRADER, "lessons": _LESSONS}
INSTRUCTOR_ONLY = ("cli", "report")

# code, math, placeholders, addresses, tags, and a Python error as Python prints it (a quiz's choice
# quotes one in plain text: "RuntimeError: grad can be implicitly created only for scalar outputs")
CODE = re.compile(r"```.*?```|`[^`]*`|\$[^$]*\$|\{[a-z_0-9]*(?:[!:][^}]*)?\}|https?://\S+|<[^>]+>"
                  r"|\b[A-Z]\w*(?:Error|Exception): [^\n”\"»」]*", re.S)
FORMULA = re.compile(r"[\w.'()\[\]]+(?:[ \t]*(?:==|[=+*·/<>×−-])[ \t]*[\w.'()\[\]]+)+")
IDENTIFIER = re.compile(r"\S*(?:_|\w[(\[]|=|\w\.\w|\d)\S*")
CAMEL = re.compile(r"[a-z][A-Z]|^[A-Z]{2,}[a-z]")
WORD = re.compile(r"[^\W\d_]{2,}")

# nbgrader's and IPython's words that the feedback page shows (before the course put them in the
# notebook's language), and JupyterLab's on a student's screens
NBGRADER = ("Score Test cell Coding free-response Written response Task Comment Top Student's answer task "
            "Grade cell Comments In Out No description has been provided for this image No response "
            "Traceback most recent call last Cell line File in skipping hidden frame frames "
            "YOUR CODE HERE ANSWER Validate Validating Success Your notebook passes all the tests "
            "The following cell failed passed There was an error running the validate command")


@functools.cache
def glossary() -> dict:
    with GLOSSARY.open("rb") as f:
        return tomllib.load(f)


def _flat(node, prefix=""):
    for key, value in node.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and "other" not in value:
            yield from _flat(value, name)
        elif isinstance(value, dict):
            for form in value.values():
                yield name, form
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, str):
                    yield name, item
        elif isinstance(value, str):
            yield name, value


def messages(lang: str):
    """(where, text) of every message a student may read in ``lang`` (the instructor's sections left out)."""
    for package, catalogue in CATALOGUES.items():
        for key, text in _flat(catalogue.catalogue(lang)):
            if key.split(".")[0] not in INSTRUCTOR_ONLY:
                yield f"{package}:{key}", text


def prose(lang: str):
    """(where, text) of every markdown cell of the four lessons in ``lang``."""
    from autograder.instructor import course

    for assignment in course.ASSIGNMENTS:
        if lang == "en":
            nb = nbformat.read(str(course.source_notebook(assignment)), as_version=4)
            cells = course.markdown_cells(nb)
        else:
            cells = course.read_prose(lang, assignment)
        for cell_id, text in cells.items():
            yield f"{assignment}:{cell_id}", text


def student_lab_strings() -> list:
    """The JupyterLab strings a student of the course meets (lessons/lab_locale/student_strings.json)."""
    from lessons import lab_locale

    return json.loads((lab_locale.HERE / "student_strings.json").read_text(encoding="utf-8"))


@functools.cache
def english_vocabulary() -> frozenset:
    words = set()
    for source in (messages("en"), prose("en")):
        for _, text in source:
            words |= {w.lower() for w in prose_words(text)}
    for entry in student_lab_strings():
        words |= {w.lower() for w in prose_words(entry["key"].split("\x04")[-1])}
    words |= {w.lower() for w in prose_words(NBGRADER)}
    return frozenset(words)


def prose_words(text: str) -> list:
    """The words of ``text`` outside code, identifiers and formulas (of two letters or more)."""
    text = CODE.sub(" ", text)
    text = FORMULA.sub(" ", text)
    text = IDENTIFIER.sub(" ", text)
    return [w for w in WORD.findall(text) if w.isascii() and not CAMEL.search(w)]


@functools.cache
def not_english(lang: str) -> frozenset:
    """The words ``lang`` may show as they are: kept in English, or as much ``lang``'s own."""
    english = glossary()["english"]
    words = list(english["kept"]) + list(english["kept_in"].get(lang, [])) + list(english["also"].get(lang, []))
    return frozenset(w.lower() for w in words)


def english_words(text: str, lang: str) -> list:
    """The English words of ``text`` read in ``lang`` (empty in English)."""
    if lang == "en":
        return []
    vocabulary, allowed = english_vocabulary(), not_english(lang)
    return [w for w in prose_words(text) if w.lower() in vocabulary and w.lower() not in allowed]


def english_left(texts, lang: str) -> list:
    """``where: words`` for each (where, text) of ``texts`` that has English in ``lang``."""
    left = []
    for where, text in texts:
        found = english_words(text, lang)
        if found:
            left.append(f"{where}: {sorted(set(found))}")
    return left
