"""JupyterLab's own words on a student's screens, in every language of the course (lessons/lab_locale):
the strings a student meets (measured by benchmarks/lab_strings.py) are all translated, by the
language pack or by the course; the course's strings are JupyterLab's own msgids, in the forms
JupyterLab looks them up in, and only where the pack has none or a wrong one; Swedish is a language
pack JupyterLab finds; and the grader's messages name JupyterLab's menus as JupyterLab shows them.
(test_browser.py reads them on the page, in Spanish and Chinese.)"""
from __future__ import annotations

import json
from importlib.metadata import entry_points

import english
import pytest

from autograder import messages
from lessons import lab_locale
from lessons.lab_language import locale

LANGS = [lang for lang in messages.LANGUAGES if lang != "en"]
STRINGS = english.student_lab_strings()


def pack(lang: str) -> dict:
    """The installed language pack's data for ``lang`` ({} for Swedish: the course's is the pack)."""
    from jupyterlab_server.translation_utils import get_language_pack

    if lang == "sv":
        return {}
    data, message = get_language_pack(locale(lang))
    assert data, message
    return data


def seen(lang: str) -> dict:
    """What the student's JupyterLab gets for ``lang``: the pack with the course's strings."""
    from jupyterlab_server.translation_utils import get_language_pack

    data, message = get_language_pack(locale(lang))
    assert data, message
    return lab_locale.with_course_strings(data, locale(lang))


@pytest.mark.parametrize("lang", LANGS)
def test_every_string_a_student_meets_is_translated(lang):
    data = seen(lang)
    missing = [entry["key"] for entry in STRINGS
               if not lab_locale.translated(data.get(entry["domain"], {}).get(entry["key"]))]
    assert missing == []


@pytest.mark.parametrize("lang", LANGS)
def test_no_english_is_left_in_jupyterlabs_words(lang):
    data = seen(lang)
    texts = [(entry["key"], data[entry["domain"]][entry["key"]][0]) for entry in STRINGS]
    assert english.english_left(texts, lang) == []


@pytest.mark.parametrize("lang", LANGS)
def test_the_course_adds_only_what_the_pack_lacks_or_gets_wrong(lang):
    """Each of the course's strings is a msgid of the strings a student meets (no typo adds a string
    nobody sees), and where the pack translates it too, the course's differs (a correction, not a
    copy that would hide the pack's future fixes)."""
    known = {(entry["domain"], entry["key"]) for entry in STRINGS}
    theirs = pack(lang)
    for domain, strings in lab_locale.course_strings(locale(lang)).items():
        for key, value in strings.items():
            assert (domain, key) in known, (domain, key)
            if lab_locale.translated(theirs.get(domain, {}).get(key)):
                assert theirs[domain][key] != value, (domain, key)


@pytest.mark.parametrize("lang", LANGS)
def test_plural_strings_have_their_plural_forms(lang):
    """JupyterLab looks a msgid it counts (``_n``: Cut Cell, Cut Cells) up only in an entry of more
    than one form, and any other only in an entry of exactly one: the French pack, which has every
    one of these strings, says which is which."""
    french = pack("fr")
    for domain, strings in lab_locale.course_strings(locale(lang)).items():
        for key, value in strings.items():
            if key in french.get(domain, {}):
                assert (len(value) > 1) == (len(french[domain][key]) > 1), key


def test_swedish_is_a_language_pack_of_the_course():
    from jupyterlab_server.translation_utils import get_language_pack, get_language_packs

    assert "sv_SE" in {e.name for e in entry_points(group="jupyterlab.languagepack")}
    assert get_language_packs()[0]["sv_SE"]["nativeName"].startswith("Svenska")
    data, _ = get_language_pack("sv_SE")
    assert data["jupyterlab"][""]["plural_forms"] and data["jupyterlab"]["menu\x04File"] == ["Arkiv"]
    assert locale("sv") == "sv_SE"


def test_the_course_strings_win_and_no_locale_is_made_up():
    pack_data = {"jupyterlab": {"": {"domain": "jupyterlab"}, "Idle": [""], "New Notebook": ["wrong"], "Save": ["Guardar"]}}
    merged = lab_locale.with_course_strings(json.loads(json.dumps(pack_data)), "es_ES")
    assert merged["jupyterlab"]["Idle"] == ["Inactivo"] and merged["jupyterlab"]["New Notebook"] == ["Nuevo cuaderno"]
    assert merged["jupyterlab"]["Save"] == ["Guardar"] and "notebook" not in merged  # a domain the pack lacks
    assert lab_locale.with_course_strings({}, "es_ES") == {}  # no pack installed: JupyterLab says so
    assert lab_locale.course_strings("de_DE") == {} and lab_locale.course_strings("../es_ES") == {}


def test_the_jupyterlab_locale_entry_point_cannot_add_to_a_pack():
    """Why the course serves its strings itself (lessons/lab_locale): jupyterlab_server merges a
    package's locale data into a pack's domain only when the package's version is newer than the
    pack's, and the packs' version cannot be compared."""
    from jupyterlab_server.translation_utils import merge_locale_data
    from packaging.version import InvalidVersion

    data = pack("es")["jupyterlab"]
    assert data[""]["version"] == "jupyterlab"
    with pytest.raises(InvalidVersion):
        merge_locale_data(data, {"": {"domain": "jupyterlab", "version": "4.6.0"}, "Idle": ["Inactivo"]})


@pytest.mark.parametrize("lang", messages.LANGUAGES)
def test_the_grader_names_jupyterlabs_menus_as_jupyterlab_shows_them(lang):
    """A notebook too large to grade: the message names Edit › Clear Outputs of All Cells in the
    words of the student's JupyterLab."""
    data = seen(lang).get("jupyterlab", {}) if lang != "en" else {}

    def shown(key: str) -> str:
        return data[key][0] if lab_locale.translated(data.get(key)) else key.split("\x04")[-1]

    text = messages._GRADER.raw("grading.reason_too_large", lang)
    assert f"{shown(chr(4).join(['menu', 'Edit']))} › {shown('Clear Outputs of All Cells')}" in text, text
    assert "Clear Outputs of All Cells" not in text or lang == "en"


def test_the_swedish_student_is_told_once_what_jupyterlab_shows_in_swedish():
    """JupyterLab has no official Swedish: lesson 1 says so once, in Swedish, says the course has its
    own for the screens of the lessons, and how to switch to it."""
    from autograder.instructor import course

    told = [(assignment, cell) for assignment in course.ASSIGNMENTS
            for cell, text in course.read_prose("sv", assignment).items() if "`Settings › Language`" in text]
    assert told == [("01_requires_grad", "objectives")]
    note = course.read_prose("sv", "01_requires_grad")["objectives"]
    assert "ingen officiell svensk översättning" in note and "Validera" in note
    assert lab_locale.course_strings("sv_SE")["jupyterlab"]["menu\x04File"] == ["Arkiv"]
