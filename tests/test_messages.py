"""Every message the code asks for exists in the English locale, and fills in cleanly."""
from __future__ import annotations

import re
import string

import pytest
from helpers import ROOT

from autograder import messages as grader_messages
from lessons import text as lesson_text

KEY_CALL = re.compile(r"""(?<![\w])(?:text|raw|fail|nested|render|has|describe)\((?:[^()]*?,\s*)?["']([a-z_0-9]+\.[a-z_0-9.]+)["']""")


# The lessons ask the grader's messages for what a graded question shows: ``messages.text(...)``.
GRADER_CALL = re.compile(r"""messages\.(?:text|raw|has)\(["']([a-z_0-9]+\.[a-z_0-9.]+)["']""")


def _keys_used(package: str, pattern=KEY_CALL) -> set:
    keys = set()
    for path in (ROOT / package).rglob("*.py"):
        text = path.read_text()
        grader = set(GRADER_CALL.findall(text)) if package == "lessons" and pattern is KEY_CALL else set()
        keys |= set(pattern.findall(text)) - grader
    return keys


@pytest.mark.parametrize("package,messages", [("autograder", grader_messages._GRADER),
                                               ("lessons", lesson_text._LESSONS)])
def test_every_key_in_code_exists(package, messages):
    used = _keys_used(package)
    assert len(used) > 10
    for key in used:
        messages.raw(key)  # raises KeyError when missing


def test_the_grader_keys_the_lessons_use_exist():
    """(A graded question's words are shown by ``autograder.wire.questions``, for the lessons.)"""
    used = _keys_used("lessons", GRADER_CALL) | set(KEY_CALL.findall((ROOT / "autograder/wire/questions.py").read_text()))
    assert "quiz.variant_missing" in used
    for key in used:
        grader_messages._GRADER.raw(key)


@pytest.mark.parametrize("messages", [grader_messages._GRADER, lesson_text._LESSONS])
def test_templates_are_well_formed(messages):
    def walk(node, path=""):
        if isinstance(node, dict):
            for k, v in node.items():
                yield from walk(v, f"{path}.{k}" if path else k)
        else:
            yield path, node
    for key, template in walk(messages.catalogue("en")):
        list(string.Formatter().parse(template))  # raises on a broken {placeholder}


def test_translation_falls_back_to_english(monkeypatch, tmp_path):
    (tmp_path / "en.toml").write_text('[a]\nb = "hello {who}"\nc = "bye"\n')
    (tmp_path / "sv.toml").write_text('[a]\nb = "hej {who}"\n')
    msgs = grader_messages.Messages(tmp_path)
    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", "sv")
    assert msgs.text("a.b", who="du") == "hej du"
    assert msgs.text("a.c") == "bye"


def _mistake_ids() -> set:
    ids = set()
    for path in (ROOT / "autograder").rglob("*.py"):
        ids |= set(re.findall(r"""fail\(\s*["']([a-z_]+)["']""", path.read_text()))
    errors = (ROOT / "autograder" / "kernel" / "errors.py").read_text()
    ids |= set(re.findall(r"""^\s+\("([a-z_]+)", "[A-Za-z]+Error""", errors, re.M))
    return ids | {"crashed"}


def test_every_mistake_has_a_name_for_the_class_summary():
    ids = _mistake_ids()
    assert len(ids) > 60
    named = grader_messages._GRADER.catalogue("en")["mistakes"]
    assert ids <= set(named), sorted(ids - set(named))


def test_a_number_picks_its_plural_form_in_each_language():
    from autograder.messages import plural, render

    assert [plural("en", n) for n in (0, 1, 2)] == ["other", "one", "other"]
    assert [plural("fr", n) for n in (0, 1, 2)] == ["one", "one", "other"]
    assert [plural("zh", n) for n in (1, 2)] == ["other", "other"]
    once = render("backward.no_autograd", {"calls": 1, "count": 1}, "en")
    twice = render("backward.no_autograd", {"calls": 2, "count": 2}, "en")
    assert once.startswith("Your function called f once,") and twice.startswith("Your function called f 2 times,")
    assert render("backward.no_autograd", {"calls": 2, "count": 2}, "es").startswith("Tu función llamó a f 2 veces,")
    assert render("backward.no_autograd", {"calls": 1, "count": 1}, "sv").startswith("Din funktion anropade f en gång,")
    assert "(s)" not in once + twice


def test_each_exercise_has_its_words_in_every_language_and_writes_no_key_twice(tmp_path):
    """An exercise's folder has ``locale/<lang>.toml`` for every language, with the grader's
    words (``[grader]``) and the lessons' (``[lessons]``: its hints) and nothing else; a key
    written in two files is refused, naming the file, rather than one hiding the other."""
    import tomllib

    from autograder.exercises import ALL

    for spec in ALL:
        folder = ROOT / "autograder/exercises" / spec.name / "locale"
        assert sorted(p.name for p in folder.glob("*.toml")) == sorted(f"{lang}.toml" for lang in grader_messages.LANGUAGES)
        english = tomllib.loads((folder / "en.toml").read_text())
        assert set(english) <= {"grader", "lessons"}, spec.name
        assert ("hints" in english.get("lessons", {})) == spec.hints, spec.name
        if spec.hints:
            assert lesson_text.raw(f"hints.{spec.name}", "en") == english["lessons"]["hints"][spec.name]
    with pytest.raises(ValueError, match=r"exercises/x/locale/en.toml: backward.shape is already defined"):
        grader_messages.merge({"backward": {"shape": "x"}}, {"backward": {"shape": "y"}}, "exercises/x/locale/en.toml")
    with pytest.raises(ValueError, match="backward is already defined"):
        grader_messages.merge({"backward": "a message"}, {"backward": {"shape": "y"}}, "here")
    merged = {"backward": {"shape": "x"}}
    grader_messages.merge(merged, {"backward": {"divisor": "y"}, "debug": {"tiny": "z"}}, "here")
    assert merged == {"backward": {"shape": "x", "divisor": "y"}, "debug": {"tiny": "z"}}
