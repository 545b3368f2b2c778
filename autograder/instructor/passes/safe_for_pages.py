"""SafeForPages: nothing a student wrote is live in a page an instructor or a student opens.

Formgrader renders the autograded notebook inside the instructor's Jupyter server (same
origin: a script there could use the Jupyter API as the instructor, and run code on
their machine), and the feedback page is rendered from it too. This pass runs on the
autograded notebook before nbgrader saves it (and again on the feedback, for notebooks
graded before it existed), so that both pages show the student's work as content only:

* **outputs** keep plain text, PNG and JPEG images (valid base64 only: the data lands in
  an ``src`` attribute) and HTML cleaned by nbconvert's ``SanitizeHTML`` (bleach) with a
  short list of tags (text, lists, tables, headings) and attributes (a link's ``href``
  to http, https or mailto): no script, event handler, style, ``iframe``, ``meta``,
  ``base``, form or image (an image from elsewhere is a request). JavaScript, SVG,
  LaTeX and Markdown outputs (rendered by MathJax or the Markdown renderer) and widget
  views are dropped; their plain-text version stays. An image's size is a number or
  nothing (it lands unquoted in an attribute); an execution count is a number;
* **a student's markdown and raw cells** (their own cells, and written answers) are
  shown as the text they typed, in a code block: no HTML, link, image or math of theirs
  is rendered. The instructor's locked markdown cells were put back from the
  instructor's version by OverwriteCells (in the notebook's language) and render as
  written.

**Nothing of a submission is typeset.** Both pages load MathJax (2.7, nbconvert's ``mathjax()``),
which typesets ``$...$``, ``\\(...\\)``, ``\\[...\\]`` and ``\\begin{...}`` in any text it scans,
sanitised HTML included: a student's output could draw ``\\href`` links and ``\\style`` boxes over
the page. So every cleaned HTML output is wrapped in an element of MathJax's ignore classes
(``tex2jax_ignore`` for MathJax 2, ``mathjax_ignore`` for 3), which nothing inside it can undo
(no ``class`` attribute passes the cleaning); text, streams and errors are shown in ``<pre>``,
which MathJax never scans. The pages' own templates (``feedback_in_language``,
``formgrade_inert``) also ignore the whole page but the instructor's markdown cells.

**The cleaning costs what its input's size says.** html5lib looks through every open element at
each new tag, and compares each new formatting element's attributes with every open one's: two
outputs of 98,000 characters of unclosed ``<b>`` took 93 s of a grading worker's CPU (21 s in
this pass alone, measured here), and one output of 8,000 ``<b id=N>`` 49 s (40 such outputs:
over half an hour). So HTML is parsed only within a budget per output (``MAX_TAGS`` tags) and
per notebook (``NOTEBOOK_TAGS`` tags, ``NOTEBOOK_CHARS`` characters), counted in one linear scan
before parsing; an output past it is not parsed and shows as text (its plain-text version, else
its HTML source), as a refused tag does. An honest lesson holds at most 44 tags in one output
and 150 in all. Measured (``benchmarks/bench_sanitize.py``,
CPU seconds of this pass, median of three): an honest lesson-3 notebook 0.007 s; the two outputs of
unclosed ``<b>`` 21.4 s before, 0.010 s now; 40 outputs of ``<b id=N>`` (3.6 MB) 0.05 s; the worst
the budget lets through (outputs of 200 tags, each paragraph reopening every ``<b>``) 0.27 s.

The lessons' own outputs while grading are text and PNG plots; they show as before.
"""
from __future__ import annotations

import re

from nbconvert.preprocessors.sanitize import SanitizeHTML
from nbformat import NotebookNode
from nbgrader import utils
from traitlets import Bool

TAGS = ["p", "div", "span", "br", "hr", "b", "i", "em", "strong", "code", "pre", "kbd", "samp", "sub", "sup",
        "small", "ul", "ol", "li", "dl", "dt", "dd", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6",
        "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td", "a", "abbr"]
ATTRIBUTES = {"a": ["href", "title"], "abbr": ["title"], "th": ["colspan", "rowspan"], "td": ["colspan", "rowspan"]}
IMAGES = ("image/png", "image/jpeg")
BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")
QUOTED = "quoted"  # the mark of a cell already shown as text (cell metadata ``autograder``)
INERT = "tex2jax_ignore mathjax_ignore"  # MathJax 2's and 3's classes of what they never typeset
WRAPPED = f'<div class="{INERT}">'
TAG = re.compile(r"<[A-Za-z/!?]")  # where html5lib's tokenizer may see a tag, a comment or a doctype
MAX_TAGS = 200  # tags one HTML output may hold to be parsed (an honest lesson's: at most 44)
NOTEBOOK_TAGS = 600  # tags parsed in one notebook (an honest lesson's: at most 150)
NOTEBOOK_CHARS = 30_000  # characters of HTML parsed in one notebook (an honest lesson's: at most 2,600)


def as_text(source: str) -> str:
    """Markdown that shows ``source`` literally: a fenced code block longer than any run of
    backticks in it."""
    longest = max((len(run) for run in re.findall(r"`+", source)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{source.rstrip()}\n{fence}"


def _instructors(cell) -> bool:
    """A markdown cell put back from the instructor's version (locked, not an answer)."""
    meta = cell.metadata.get("nbgrader", {})
    return isinstance(meta, dict) and meta.get("locked") is True and not utils.is_solution(cell) \
        and not utils.is_grade(cell)


def _size(value) -> int | None:
    """An image width or height as a whole number of pixels, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and 0 < value < 100_000:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit() and 0 < int(value) < 100_000:
        return int(value)
    return None


def _count(value):
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class SafeForPages(SanitizeHTML):
    enabled = Bool(True)  # nbconvert's passes are off unless enabled; this one always runs

    def __init__(self, **kw):
        super().__init__(**kw)
        self.tags = TAGS
        self.attributes = ATTRIBUTES
        self.styles = []
        self.strip = False  # a refused tag shows as text: the instructor sees what was tried
        self.safe_output_keys = {"text/plain", *IMAGES}
        self.sanitized_output_types = {"text/html"}

    def preprocess(self, nb, resources):
        self._tags_left, self._chars_left = NOTEBOOK_TAGS, NOTEBOOK_CHARS
        for index, cell in enumerate(nb.cells):
            nb.cells[index], resources = self.preprocess_cell(cell, resources, index)
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type in ("markdown", "raw"):
            marks = cell.metadata.get("autograder", {})
            if cell.cell_type == "raw" or not (_instructors(cell) or (isinstance(marks, dict) and marks.get(QUOTED))):
                cell = self._quoted(cell)
            return cell, resources
        if cell.cell_type == "code":
            cell.execution_count = _count(cell.get("execution_count"))
            cell.outputs = [self._safe(output) for output in cell.get("outputs", []) if isinstance(output, dict)]
        return cell, resources

    @staticmethod
    def _quoted(cell) -> NotebookNode:
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        quoted = NotebookNode(cell_type="markdown", source=as_text(source),
                              metadata=NotebookNode(cell.metadata, autograder={QUOTED: True}))
        if "id" in cell:
            quoted["id"] = cell.id
        return quoted

    def _safe(self, output: dict) -> NotebookNode:
        kind = output.get("output_type")
        if kind == "stream":
            name = output.get("name") if output.get("name") in ("stdout", "stderr") else "stdout"
            return NotebookNode(output_type="stream", name=name, text=_text(output.get("text", "")))
        if kind == "error":
            return NotebookNode(output_type="error", ename=_text(output.get("ename", ""))[:200],
                                evalue=_text(output.get("evalue", "")),
                                traceback=[_text(line) for line in output.get("traceback", [])
                                           if isinstance(line, str)])
        data = output.get("data", {}) if isinstance(output.get("data"), dict) else {}
        data = {mime: _text(value) for mime, value in data.items()}
        if "text/html" in data and not self._within_budget(data["text/html"]):
            html = data.pop("text/html")
            data.setdefault("text/plain", html)
        for mime in IMAGES:
            if mime in data and not BASE64.match(data[mime]):
                del data[mime]
        safe = NotebookNode(output_type="execute_result" if kind == "execute_result" else "display_data",
                            data=NotebookNode(data), metadata=NotebookNode(_image_sizes(output.get("metadata"))))
        if kind == "execute_result":
            safe["execution_count"] = _count(output.get("execution_count"))
        return self.sanitize_code_outputs([safe])[0]

    def _within_budget(self, html: str) -> bool:
        """May ``html`` be parsed? If so, its tags and characters are taken from the notebook's budget."""
        tags = len(TAG.findall(html))
        if tags > MAX_TAGS or tags > self._tags_left or len(html) > self._chars_left:
            return False
        self._tags_left -= tags
        self._chars_left -= len(html)
        return True

    def sanitize_html_tags(self, html_str):
        """bleach's cleaning, inside an element MathJax never typesets (our own wrapper, from an
        earlier run of this pass, is taken off first: the pass can run twice)."""
        if html_str.startswith(WRAPPED) and html_str.endswith("</div>"):
            html_str = html_str[len(WRAPPED):-len("</div>")]
        return f"{WRAPPED}{super().sanitize_html_tags(html_str)}</div>"


def _text(value) -> str:
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else str(value)


def _image_sizes(metadata) -> dict:
    """Of an output's metadata, only whole-number widths and heights of its images."""
    kept = {}
    for mime in IMAGES:
        given = metadata.get(mime) if isinstance(metadata, dict) else None
        if isinstance(given, dict):
            sizes = {k: _size(given.get(k)) for k in ("width", "height")}
            sizes = {k: v for k, v in sizes.items() if v is not None}
            if sizes:
                kept[mime] = sizes
    return kept
