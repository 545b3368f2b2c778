"""One word for one thing (lessons/locale/glossary.toml): wherever the English says a glossary term,
its translation says that language's term, and no text uses a way of saying it the glossary
rejects; across every message, every lesson's prose and JupyterLab's words on a student's screens
(its language packs with the course's own strings, as the student's JupyterLab gets them)."""
from __future__ import annotations

import functools
import re

import english
import pytest

from autograder import messages
from lessons import lab_locale
from lessons.lab_language import locale

LANGS = [lang for lang in messages.LANGUAGES if lang != "en"]
TERMS = english.glossary()["terms"]


def _pairs(lang: str):
    """(where, English text, its translation in ``lang``) of the catalogues, the prose and JupyterLab."""
    for source in (english.messages, english.prose):
        theirs = {}
        for where, text in source(lang):
            theirs.setdefault(where, []).append(text)
        ours = {}
        for where, text in source("en"):
            ours.setdefault(where, []).append(text)
        for where, texts in ours.items():
            for english_text in texts:
                for translation in theirs.get(where, []):
                    yield where, english_text, translation
    data = lab_strings(lang)
    for entry in english.student_lab_strings():
        translation = data.get(entry["domain"], {}).get(entry["key"])
        english_text = entry["key"].split("\x04")[-1]
        if translation and translation[0] and translation[0] != english_text:  # (a name kept as it is: Notebook, the app)
            yield f"JupyterLab:{entry['key']!r}", english_text, translation[0]


def lab_strings(lang: str) -> dict:
    """JupyterLab's translations of ``lang`` as the student's JupyterLab gets them."""
    from jupyterlab_server.translation_utils import get_language_pack

    data, _ = get_language_pack(locale(lang))
    return lab_locale.with_course_strings(data, locale(lang))


@functools.cache
def outside_code(text: str) -> str:
    """``text`` without its code, formulas and identifiers (``enumerate(batches)`` names no batch)."""
    return english.IDENTIFIER.sub(" ", english.FORMULA.sub(" ", english.CODE.sub(" ", text)))


def said_otherwise(term: dict, lang: str, pairs) -> list:
    """Where the English says ``term`` and the ``lang`` text does not say the glossary's word, or
    says a word the glossary rejects."""
    wanted = re.compile(term[lang], re.I)
    rejected = re.compile(term["avoid"][lang], re.I) if lang in term.get("avoid", {}) else None
    found = []
    for where, english_text, translation in pairs:
        if re.search(term["en"], outside_code(english_text), re.I) and not wanted.search(translation):
            found.append(f"{where}: no {term[lang]!r} in {translation[:120]!r}")
        if rejected and (hit := rejected.search(outside_code(translation))):
            found.append(f"{where}: {hit.group(0)!r}")
    return found


@pytest.fixture(scope="module")
def pairs():
    return {lang: list(_pairs(lang)) for lang in LANGS}


def test_every_term_has_a_word_in_every_language():
    for name, term in TERMS.items():
        assert set(messages.LANGUAGES) <= set(term), name
        for pattern in [term[lang] for lang in messages.LANGUAGES] + list(term.get("avoid", {}).values()):
            re.compile(pattern)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(TERMS))
def test_a_term_is_said_one_way(name, lang, pairs):
    assert said_otherwise(TERMS[name], lang, pairs[lang]) == []


def test_a_term_said_two_ways_is_found():
    """The check itself: "variant" said 版本 once and 变体 once in Chinese, "notebook" once said
    anteckningsbok in Swedish."""
    pairs = [("a", "Your variant: 3.", "你的变体：3。"), ("b", "Your variant of this question.", "你这道题的版本。")]
    assert said_otherwise(TERMS["variant"], "zh", pairs) == [
        "b: no '变体' in '你这道题的版本。'", "b: '版本'"]
    assert said_otherwise(TERMS["variant"], "zh", [("c", "The version counter.", "版本计数器。")]) == []
    pairs = [("d", "Save the notebook.", "Spara anteckningsboken och notebooken.")]
    assert said_otherwise(TERMS["notebook"], "sv", pairs) == ["d: 'anteckningsboken'"]
