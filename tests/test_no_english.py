"""No English left on a student's screen in Spanish, Portuguese, Chinese, French or Swedish
(tests/english.py says what counts as English): every message of the catalogues (the checks'
feedback, hints, progress(), the widgets, the answer stub's sentence), every lesson's prose, the
answer stubs nbgrader writes into a released notebook, the feedback page (nbgrader's words, its
"No response.", the headers of a traceback), and JupyterLab's words on a student's screens. What
the kernel shows while a student works through every lesson is checked by the scripted walk
(tests/test_student_walk.py), with the same words."""
from __future__ import annotations

import copy
import re

import english
import nbformat
import pytest
from bs4 import BeautifulSoup
from helpers import ROOT

from autograder import messages
from autograder.instructor import course

LANGS = [lang for lang in messages.LANGUAGES if lang != "en"]


@pytest.mark.parametrize("lang", LANGS)
def test_no_message_is_left_in_english(lang):
    assert english.english_left(english.messages(lang), lang) == []


@pytest.mark.parametrize("lang", LANGS)
def test_no_lesson_prose_is_left_in_english(lang):
    assert english.english_left(english.prose(lang), lang) == []


def test_english_is_found_where_it_is_left():
    """The check itself: an English sentence in a Spanish text is found, the words Spanish shares
    with English, code and the words kept in English are not."""
    assert english.english_words("Ejecuta la celda. Clear the outputs before you submit.", "es") == [
        "Clear", "the", "outputs", "before", "you", "submit"]
    assert english.english_words("Usa `loss.backward()` y no el error total de SGD: out = self * other.", "es") == []
    assert english.english_words("你的 notebook is larger than grading takes", "zh") == ["is", "larger", "than", "grading", "takes"]
    assert english.english_words("Clear the outputs", "en") == []


# nbgrader's answer stub

def _released_stubs(lang: str, tmp_path) -> list:
    """The answer cells of lesson 3 as nbgrader's ClearSolutions leaves them in ``lang``'s course
    (the configuration ``course.build_course`` writes), read by nbgrader itself."""
    from nbgrader.preprocessors import ClearSolutions
    from traitlets.config.loader import PyFileConfigLoader

    folder = course.build_course(lang, tmp_path / lang)
    config = PyFileConfigLoader("nbgrader_config.py", path=str(folder)).load_config()
    nb = nbformat.read(str(folder / "source" / "03_zeroing_grad" / "03_zeroing_grad.ipynb"), as_version=4)
    nb, _ = ClearSolutions(config=config).preprocess(nb, {})
    return [cell.source for cell in nb.cells if cell.metadata.get("nbgrader", {}).get("solution")]


@pytest.mark.parametrize("lang", messages.LANGUAGES)
def test_the_answer_stub_is_in_the_notebooks_language(lang, tmp_path):
    """nbgrader's stub comment in the language, above the line the grader's messages name."""
    stubs = _released_stubs(lang, tmp_path)
    comment = "# " + messages._GRADER.raw("release.code_stub", lang)
    assert stubs and all(f"{comment}\n" in source and source.rstrip().endswith(f"\n{course.RAISE}".strip())
                         for source in stubs), stubs
    assert english.english_words(comment, lang) == []
    for key in ("loop.not_implemented", "value_backward.not_written"):  # the grader names the line
        assert course.RAISE in messages._GRADER.raw(key, lang)
    english_release = (ROOT / "release" / "03_zeroing_grad" / "03_zeroing_grad.ipynb")
    released = [c.source for c in nbformat.read(str(english_release), as_version=4).cells
                if c.metadata.get("nbgrader", {}).get("solution")]
    assert [course.stub_in(lang, source) for source in released] == stubs  # what grading recognises


def test_the_english_stub_is_nbgraders_configuration():
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    assert config.ClearSolutions.code_stub == course.stubs("en")["code"]
    assert config.ClearSolutions.text_stub == course.stubs("en")["text"]


# the feedback page

@pytest.fixture(scope="module")
def student_errors():
    """The outputs of a student's cell whose own function fails, as IPython shows them in a real
    kernel: a traceback with a cell header, a frame in a file, Python's message."""
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import json\ndef parse(text):\n    return json.loads(text)"),
        nbformat.v4.new_code_cell("parse('{')")])
    NotebookClient(nb, allow_errors=True, timeout=60).execute()
    return nb.cells[1].outputs


def _graded_page(lang: str, errors) -> str:
    """Lesson 3's feedback page in ``lang`` as nbgrader's GenerateFeedback makes it with the course's
    passes: its first answer left unanswered ("No response."), the next showing the student's error."""
    from nbgrader.converters import GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    from autograder.instructor.passes.concise_test_errors import ConciseTestErrors
    from autograder.instructor.passes.feedback_in_language import FeedbackInLanguage

    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    converter = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    exporter = converter.exporter_class(parent=converter, config=converter.config)
    nb = course.translated_source("03_zeroing_grad", lang)  # (the prose as it is now; release/ follows it)
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    answers[0].metadata.nbgrader["comment"] = "No response."
    answers[1].execution_count, answers[1].outputs = 3, copy.deepcopy(errors)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata.nbgrader.update(score=0, points=cell.metadata.nbgrader.get("points", 1))
    for step in (ConciseTestErrors(), FeedbackInLanguage()):
        nb, _ = step.preprocess(nb, {})
    html, _ = exporter.from_notebook_node(nb, {"nbgrader": {"notebook": "03_zeroing_grad", "score": 0,
                                                          "max_score": 17, "late_penalty": 0}})
    return html


CODE_LINE = re.compile(r"^\s*(-*>\s*)?\d+\s|^\s*\(\.\.\.\)\s*$")


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_the_feedback_page_has_no_english(lang, student_errors):
    page = BeautifulSoup(_graded_page(lang, student_errors), features="html.parser")
    for code in page.select(".input_area, .highlight, script, style, code"):
        code.decompose()
    tracebacks = page.select(".output_error pre")
    assert len(tracebacks) == 1
    lines = tracebacks[0].get_text().splitlines()
    headers = [line for line in lines if line.strip() and not CODE_LINE.match(line) and not set(line) <= {"-"}]
    say = lambda key: messages._GRADER.raw(f"feedback.{key}", lang)  # noqa: E731
    assert say("traceback") in headers[0] and headers[1].startswith(say("at_cell").split("{")[0].strip())
    assert english.english_left([(f"traceback: {line}", re.sub(r"/\S+|~\S+", " ", line)) for line in headers], lang) == []
    for error in tracebacks:
        error.decompose()
    text = page.get_text(" ")
    assert say("no_response") in text and "No response." not in text
    assert english.english_left([("feedback page", text)], lang) == []


def test_the_english_feedback_page_keeps_ipythons_and_nbgraders_words():
    from autograder.instructor.passes.feedback_in_language import FeedbackInLanguage

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x")])
    nb.cells[0].metadata["nbgrader"] = {"solution": True, "comment": "No response."}
    nb.cells[0].outputs = [nbformat.v4.new_output("error", ename="NameError", evalue="x",
                                                  traceback=["NameError    Traceback (most recent call last)"])]
    before = copy.deepcopy(nb)
    assert FeedbackInLanguage().preprocess(nb, {})[0] == before
