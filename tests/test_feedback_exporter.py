"""FeedbackExporter renders exactly nbconvert's HTML, compiling the templates once per process;
with the course's configuration, nbgrader's feedback page in the notebook's language."""
from __future__ import annotations

import copy
import re
from html import unescape

import nbconvert.exporters.html

import jinja2
import nbformat
import pytest
from bs4 import BeautifulSoup
from helpers import ROOT
from nbconvert.exporters import HTMLExporter
from nbgrader.converters import GenerateFeedback
from nbgrader.coursedir import CourseDirectory
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from autograder import messages
from autograder.instructor.passes.feedback_exporter import FeedbackExporter

LESSON = sorted((ROOT / "source").glob("*/*.ipynb"))[0]


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


def _html(exporter_class, nb, template: str = "classic") -> str:
    config = Config()
    config.HTMLExporter.template_name = template
    html, _ = exporter_class(config=config).from_notebook_node(copy.deepcopy(nb))
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>", html)


def _with_a_plot(nb):
    nb = copy.deepcopy(nb)
    code = next(cell for cell in nb.cells if cell.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"})]
    return nb


def test_feedback_exporter_renders_nbconverts_page_without_parsing_it_again(monkeypatch):
    """The same document as HTMLExporter's (which parses its page again with BeautifulSoup to
    describe images: here the template describes them), and templates compiled once."""
    nb = _with_a_plot(nbformat.read(LESSON, as_version=4))
    expected = _html(HTMLExporter, nb)
    assert 'alt="No description has been provided for this image"' in expected
    ours = _html(FeedbackExporter, nb)  # first use compiles and keeps the templates
    assert str(BeautifulSoup(ours, features="html.parser")) == expected
    compiled = []
    original = jinja2.Environment.compile
    monkeypatch.setattr(jinja2.Environment, "compile",
                        lambda self, *a, **k: compiled.append(a) or original(self, *a, **k))
    with monkeypatch.context() as no_soup:
        no_soup.setattr(nbconvert.exporters.html, "BeautifulSoup", None)
        assert _html(FeedbackExporter, nb) == ours  # a new exporter, as nbgrader makes per student
    assert compiled == []
    assert _html(HTMLExporter, nb) == expected
    assert compiled  # the stock exporter compiles them all again


def test_rendered_cells_are_remembered_but_never_mixed_up():
    """Code and prose are rendered once per process (``_remembered``), but a page never shows
    another page's: code in another language, or the same markdown with other attachments."""
    nb = nbformat.read(LESSON, as_version=4)
    assert _html(FeedbackExporter, nb) == _html(FeedbackExporter, nb)
    r = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x <- c(1, 2)")])
    r.metadata.language_info = {"name": "r", "pygments_lexer": "r"}
    python = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x <- c(1, 2)")])
    assert 'class=" highlight hl-r"' in _html(FeedbackExporter, r)
    assert 'class=" highlight hl-ipython3"' in _html(FeedbackExporter, python)
    for image in (PNG, PNG.replace("AAAA", "BBBB", 1)):
        cell = nbformat.v4.new_markdown_cell("![plot](attachment:plot.png)", attachments={"plot.png": {"image/png": image}})
        assert image in _html(FeedbackExporter, nbformat.v4.new_notebook(cells=[cell]))


# nbgrader's feedback template's own words and nbconvert's description of an image
NBGRADER_WORDS = ["Score:", "Test cell", "Student's answer", "Comments:", "(Top)", "Late submission",
                  ">Comment<", "Grade cell", "Student's task", "No description has"]
GRADED = "03_zeroing_grad"
COMMENT = "<b>Well</b> done"


def feedback_page(lang: str, notebook: str = f"{GRADED}<script>", template: bool = True) -> str:
    """The feedback page of lesson 3's ``lang`` notebook, as `nbgrader generate_feedback` makes it
    with the repository's nbgrader_config.py (its exporter, configured by nbgrader and the course;
    ``template=False``: nbgrader's own template), graded by hand: a point on each graded cell,
    a comment on each answer, a plot, a late penalty."""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    if not template:
        config.FeedbackExporter.template_name = "feedback"
    converter = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    exporter = converter.exporter_class(parent=converter, config=converter.config)
    folder = ROOT / "release" / ("" if lang == "en" else lang) / GRADED
    nb = nbformat.read(folder / f"{GRADED}.ipynb", as_version=4)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            meta.update(score=1, points=meta.get("points", 1))
        if meta.get("solution"):
            meta["comment"] = COMMENT
    cell = next(c for c in nb.cells
                if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"))
    cell.execution_count = 3
    cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="})]
    grades = {"notebook": notebook, "score": 13, "max_score": 17, "late_penalty": 13}
    html, _ = exporter.from_notebook_node(nb, {"nbgrader": grades})
    return html


@pytest.mark.parametrize("lang", messages.LANGUAGES)
def test_the_feedback_page_speaks_the_notebooks_language(lang):
    page = feedback_page(lang)
    html = unescape(page)  # the text as read (the page writes ' as &#39;)

    def say(key: str) -> str:
        return messages._GRADER.raw(f"feedback.{key}", lang)

    score = say("score").format(score="1.0", max_score="1.0")
    assert say("heading").format(notebook=f"{GRADED}&lt;script&gt;",
                                 score=say("score").format(score="13.0", max_score="17.0")) in page
    assert f'<html lang="{ {"pt": "pt-BR", "zh": "zh-Hans"}.get(lang, lang)}">' in html
    assert say("entry").format(label=f'<a href="#quiz_q1">{say("test_cell")}</a>', score=score) in html
    assert f'{score} <a href="#top">{say("top")}</a>' in html
    assert say("late_penalty").format(penalty="13.0") in html
    assert f'<a href="#comment-train_loop">{say("comment")}</a>' in html
    assert f'alt="{say("image_alt")}"' in html
    for key in ("students_answer", "comments", "grade_cell"):
        assert say(key) in html, key
    # a test cell is named as the notebook's heading names it, never by its grade id
    from autograder import titles
    assert f'{say("grade_cell")} {titles.text(titles.test_cell("train_loop_tests"), lang)}</span>' in html
    assert "<code>train_loop_tests</code>" not in html and "<code>quiz_q1</code>" not in html
    assert f'{say("in_prompt")}\xa0[3]:' in html or f'{say("in_prompt")}&nbsp;[3]:' in html
    assert "<script>" not in page and "<title>03_zeroing_grad&lt;script&gt;</title>" in page
    assert COMMENT in html  # the instructor's comment, rendered as nbgrader renders it
    if lang != "en":
        assert [word for word in NBGRADER_WORDS if word in html] == []
    if lang == "zh":
        for words in ("得分：1.0/1.0", "测试单元格", "学生的答案", "（返回顶部）", "评语：", "迟交扣分（得分：-13.0）"):
            assert words in html, words


def _titled(found) -> str:
    """nbgrader's heading of a test cell, with the title the course gives it in place of its grade id."""
    from autograder import titles

    title = titles.test_cell(found[2])
    return f"{found[1]} {titles.text(title, 'en')}" if title else found[0]


def test_in_english_the_feedback_page_is_nbgraders_own():
    """The course's template prints nbgrader's page word for word, but for the page's language
    (``<html lang="en">``), MathJax's classes (the page is ignored by MathJax but for the
    instructor's markdown cells and comments) and a test cell's heading, which names what it checks
    as the notebook's heading does ("Exercise (b)", "Question 1") where nbgrader prints its grade id
    (``train_loop_tests``, an internal name); it escapes the notebook's name too, where nbgrader's
    does not."""
    ours, nbgraders = (str(BeautifulSoup(feedback_page("en", GRADED, template=template), features="html.parser"))
                       for template in (True, False))  # the same document, whatever the blank lines
    assert ours.count('<body class="tex2jax_ignore mathjax_ignore">') == 1
    assert ours.count(" tex2jax_process mathjax_process") > 20  # each of the lesson's markdown cells
    assert ours.count('<div class="tex2jax_process mathjax_process">') > 3  # each comment
    nbgraders = re.sub(r'(<span class="nbgrader-label">Grade cell:) <code>([^<]*)</code>', _titled, nbgraders)
    without_classes = (ours.replace('<body class="tex2jax_ignore mathjax_ignore">', "<body>")
                       .replace(" tex2jax_process mathjax_process", "")
                       .replace('<div class="tex2jax_process mathjax_process">', "<div>"))
    uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
    assert uuid.sub("", without_classes) == uuid.sub("", nbgraders).replace("<html>", '<html lang="en">', 1)
