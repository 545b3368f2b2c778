"""The course in Spanish, Portuguese, Chinese, French and Swedish: one source of truth for code.

A translation is prose only (autograder.instructor.course). These tests fail when a
translation misses a message or a notebook cell, keeps an English sentence, changes a
{placeholder}, or when a notebook's code differs between languages.
"""
from __future__ import annotations

import re
import string

import nbformat
import pytest
from helpers import ROOT

from autograder import messages
from autograder.instructor import course
from lessons import text as lesson_text

LANGS = [lang for lang in messages.LANGUAGES if lang != "en"]  # every language the course declares
PRESENT = [lang for lang in LANGS if (course.PROSE / lang).is_dir()]
# each package's messages: its locale folder's and its part of every exercise's locale files
CATALOGUES = {"lessons": lesson_text._LESSONS, "autograder": messages._GRADER}
# English words that no sentence in these five languages needs; three of them in one text
# mean a sentence was left in English
ENGLISH = {"the", "and", "of", "to", "is", "are", "you", "your", "with", "this", "that", "which", "when", "what",
           "it", "be", "not", "from", "by", "has", "have", "was", "were", "its", "into", "than", "then", "there"}
CODE = re.compile(r"```.*?```|`[^`]*`|\$[^$]*\$|\{[a-z_0-9]*(?::[^}]*)?\}|https?://\S+|<[^>]+>", re.S)


def _flat(node, prefix=""):
    """(key, message) of a catalogue; a table of plural forms is one message."""
    for key, value in node.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and "other" not in value:
            yield from _flat(value, name)
        else:
            yield name, value


def _load(package: str, lang: str) -> dict:
    return dict(_flat(CATALOGUES[package].catalogue(lang)))


def _placeholders(text) -> set:
    """The fields a message fills in (of all its plural forms together)."""
    if isinstance(text, dict):
        return set().union(*(_placeholders(form) for form in text.values()))
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None} - {"count"}


def english_words(text: str) -> set:
    words = re.findall(r"[A-Za-z]+", CODE.sub(" ", text))
    return {w.lower() for w in words} & ENGLISH


def test_every_declared_language_is_there():
    assert PRESENT == LANGS


@pytest.mark.parametrize("lang", PRESENT)
@pytest.mark.parametrize("package", sorted(CATALOGUES))
def test_every_message_is_translated_with_the_same_placeholders(package, lang):
    english, translated = _load(package, "en"), _load(package, lang)
    instructor_only = messages.ENGLISH_ONLY if package == "autograder" else ()
    english = {key: text for key, text in english.items()
               if key.split(".")[0] not in instructor_only or key in translated}
    assert sorted(set(english) - set(translated)) == [], "missing"
    assert sorted(set(translated) - set(english)) == [], "not in English"
    for key, text in english.items():
        if isinstance(text, (str, dict)):
            assert _placeholders(translated[key]) == _placeholders(text), key


@pytest.mark.parametrize("lang", PRESENT)
@pytest.mark.parametrize("assignment", course.ASSIGNMENTS)
def test_every_markdown_cell_is_translated(lang, assignment):
    nb = nbformat.read(str(course.source_notebook(assignment)), as_version=4)
    prose = course.read_prose(lang, assignment)
    assert sorted(prose) == sorted(course.markdown_cells(nb))


@pytest.mark.parametrize("lang", PRESENT)
def test_an_exercises_task_cells_are_in_its_own_folder(lang):
    """The cells that state an exercise's task (its spec's ``task``) are markdown cells of its
    lesson, translated in the ``[task]`` table of its folder's locale file and in no lesson file;
    the translator's template of the lesson names them instead of holding them."""
    import tomllib

    from autograder.exercises import EXERCISES
    from lessons import prose

    assert all(e.task for e in EXERCISES)  # every exercise states its task in cells of its own
    for exercise in EXERCISES:
        assignment = course.ASSIGNMENTS[exercise.lesson - 1]
        markdown = course.markdown_cells(nbformat.read(str(course.source_notebook(assignment)), as_version=4))
        assert set(exercise.task) <= set(markdown), exercise.name
        with (ROOT / "autograder/exercises" / exercise.name / "locale" / f"{lang}.toml").open("rb") as f:
            assert sorted(tomllib.load(f).get("task", {})) == sorted(exercise.task), exercise.name
        with prose.lesson_file(lang, assignment).open("rb") as f:
            assert not set(exercise.task) & set(tomllib.load(f)["cells"]), exercise.name
        template = course.template(lang, assignment)
        assert f"autograder/exercises/{exercise.name}/locale/{lang}.toml" in template
        assert f"\n{exercise.task[0]} = " not in template


def test_a_cell_in_both_places_is_refused(tmp_path, monkeypatch):
    from lessons import prose

    (tmp_path / "sv").mkdir()
    (tmp_path / "sv" / "03_zeroing_grad.toml").write_text('[cells]\nex-c = "Dubbel"\n')
    monkeypatch.setattr(prose, "LOCALE", tmp_path)
    with pytest.raises(ValueError, match=r"sv/03_zeroing_grad: cells both in the lesson's file and an exercise's"):
        prose.cells("sv", "03_zeroing_grad")


def _texts(lang: str):
    for package in CATALOGUES:
        english = _load(package, "en")
        for key, text in _load(package, lang).items():
            yield f"{package}:{key}", text, english.get(key)
    for assignment in course.ASSIGNMENTS:
        nb = nbformat.read(str(course.source_notebook(assignment)), as_version=4)
        english = course.markdown_cells(nb)
        for cell_id, text in course.read_prose(lang, assignment).items():
            yield f"{assignment}:{cell_id}", text, english.get(cell_id)


@pytest.mark.parametrize("lang", PRESENT)
def test_no_english_sentence_is_left(lang):
    left = []
    for where, text, english in _texts(lang):
        if not isinstance(text, str):
            continue
        words = english_words(text)
        prose = CODE.sub("", text).strip()
        if len(words) >= 3 or (english and text == english and len(re.findall(r"[A-Za-z]{3,}", prose)) >= 3):
            left.append(f"{where}: {sorted(words)}")
    assert left == []


@pytest.mark.parametrize("lang", PRESENT)
@pytest.mark.parametrize("assignment", course.ASSIGNMENTS)
def test_code_is_the_same_in_every_language(lang, assignment):
    english = nbformat.read(str(course.source_notebook(assignment)), as_version=4)
    built = course.translated_source(assignment, lang)
    assert [c.id for c in built.cells] == [c.id for c in english.cells]
    for ours, theirs in zip(built.cells, english.cells):
        assert ours.metadata == theirs.metadata
        if ours.cell_type == "code":
            assert ours.source == theirs.source, ours.id
    assert built.metadata["autograd_lessons"] == {"language": lang}
    release = ROOT / "release" / lang / assignment / f"{assignment}.ipynb"
    committed = nbformat.read(str(release), as_version=4)
    english_release = nbformat.read(str(ROOT / "release" / assignment / f"{assignment}.ipynb"), as_version=4)
    # the same code, but for the answer stubs' comment, in the notebook's language (course.stub_in)
    assert [(c.id, c.source) for c in committed.cells if c.cell_type == "code"] == \
        [(c.id, course.stub_in(lang, c.source)) for c in english_release.cells if c.cell_type == "code"]


@pytest.mark.parametrize("lang", PRESENT)
@pytest.mark.parametrize("assignment", course.ASSIGNMENTS)
def test_the_committed_release_has_the_prose_as_it_is_now(lang, assignment):
    """``release/<lang>/`` was regenerated after the last change of its prose (``make release``):
    each markdown cell says what the lesson's file and its exercises' task cells say now."""
    prose = course.read_prose(lang, assignment)
    committed = nbformat.read(str(ROOT / "release" / lang / assignment / f"{assignment}.ipynb"), as_version=4)
    stale = [c.id for c in committed.cells if c.cell_type == "markdown" and c.source != prose[c.id].strip("\n")]
    assert stale == [], f"release/{lang}/{assignment}: cells {stale} differ from the prose: run make release"


@pytest.mark.parametrize("lang", PRESENT)
def test_grader_messages_render_in_the_language(lang, monkeypatch):
    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", lang)
    english = messages.render("loop.cleared_once", {"step": 2, "where": "x", "used": "y", "expected": "z",
                                                   "backward_where": "w"}, "en")
    assert messages.render("loop.cleared_once", {"step": 2, "where": "x", "used": "y", "expected": "z",
                                                 "backward_where": "w"}) != english


def test_the_language_comes_from_the_notebook(tmp_path, monkeypatch):
    nb = course.translated(nbformat.v4.new_notebook(), "sv", {})
    nbformat.write(nb, str(tmp_path / "lesson.ipynb"))
    monkeypatch.delenv("AUTOGRAD_LESSONS_LANG", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JPY_SESSION_NAME", "some/folder/lesson.ipynb")
    messages._notebook_language.cache_clear()
    try:
        assert messages.language() == "sv"
        monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", "fr")
        assert messages.language() == "fr"  # the grader's setting wins
    finally:
        messages._notebook_language.cache_clear()


def test_a_translation_that_misses_a_cell_is_refused():
    nb = nbformat.read(str(course.source_notebook("01_requires_grad")), as_version=4)
    prose = dict(course.markdown_cells(nb))
    prose.pop(next(iter(prose)))
    with pytest.raises(course.TranslationError):
        course.translated(nb, "es", prose)
