"""FeedbackExporter: nbconvert's HTMLExporter, compiling its templates once per process, with
the course's feedback template in the notebook's language.

The course's template (``templates/feedback_in_language``, named by ``nbgrader_config.py``) is
nbgrader's feedback page with nbgrader's own words ("Score: x / y", "Test cell", "Student's
answer", "Comments:", "(Top)", the prompts, an image's description) taken from the
``[feedback]`` section of ``autograder/locale/<lang>.toml``, ``lang`` being the notebook's
``autograd_lessons.language`` (one of the course's codes, else English). This exporter puts
the words in the resources and the template's folder among nbconvert's template folders,
wherever the course directory is. In English the page is nbgrader's, word for word.
"""
from __future__ import annotations

from pathlib import Path

from jinja2 import pass_context
from jinja2.bccache import BytecodeCache
from markupsafe import Markup, escape
from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from traitlets import default, validate

from ... import messages
from .safe_for_pages import IMAGES  # the only images SafeForPages keeps

TEMPLATES = str(Path(__file__).parent / "templates")
HTML_LANG = {"pt": "pt-BR", "zh": "zh-Hans"}  # the course's codes as HTML's lang attribute


class FeedbackWords:
    """The feedback page's own words in one language, as safe HTML: ``say(key, **fields)`` is
    the ``feedback.<key>`` message, escaped, with each field escaped into it (a field that is
    already Markup, such as another ``say``, stays as it is)."""

    def __init__(self, lang: str):
        self.lang = HTML_LANG.get(lang, lang)
        self.code = lang

    def say(self, key: str, **fields) -> Markup:
        return escape(self.raw(key)).format(**{name: escape(value) for name, value in fields.items()})

    def raw(self, key: str) -> str:
        """The ``feedback.<key>`` message as plain text (the template escapes it)."""
        return messages._GRADER.raw(f"feedback.{key}", self.code)

    def title(self, grade_id) -> Markup:
        """What a test cell checks, as the notebook's heading names it ("Exercise (b)", "Question 1"),
        never the grade id the grader keys it by; a cell the course does not know, by its id, as code."""
        from ... import titles

        known = titles.test_cell(grade_id)
        if known is None:
            return Markup("<code>{}</code>").format(escape(grade_id))
        return escape(titles.text(known, self.code))


class _CompiledTemplates(BytecodeCache):
    """Compiled Jinja templates kept in memory, for the life of the process. Jinja checks
    each template's source checksum before using its entry, so an edited template is
    compiled again."""

    def __init__(self):
        self.compiled = {}

    def load_bytecode(self, bucket):
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket):
        self.compiled[bucket.key] = bucket.bytecode_to_string()


class FeedbackExporter(HTMLExporter):
    """nbconvert's HTMLExporter, compiling its templates once per process, not once per notebook.

    nbgrader builds a new exporter for every student's feedback, and each new exporter
    parsed and compiled the nine templates of the feedback page again: a third of the
    time feedback took. The HTML is the same. With the course's template, each page's own
    words are in its notebook's language (``FeedbackWords``).
    """

    compiled = _CompiledTemplates()

    @default("extra_template_basedirs")
    def _default_extra_template_basedirs(self):
        return [*super()._default_extra_template_basedirs(), TEMPLATES]

    @validate("extra_template_basedirs")
    def _with_the_course_templates(self, proposal):
        """The course's templates are found wherever the course directory is (its
        ``nbgrader_config.py`` is copied to other course folders and to Dask workers)."""
        folders = list(proposal["value"])
        return folders if TEMPLATES in folders else [*folders, TEMPLATES]

    def from_notebook_node(self, nb, resources=None, **kw):
        """HTMLExporter's page, without its last step: HTMLExporter parses the whole page again
        with BeautifulSoup to give every image without one a description (in English) and to
        make JupyterLab's cells focusable (the classic template used here has none). That
        re-parse was a third of the time a feedback page took (0.14 s of 0.47 s per lesson-3
        page, profiled). Here the images get their description in the notebook's language
        after the passes (``_preprocess``), and the page is the template's output as it is."""
        resources = {} if resources is None else resources
        resources["feedback"] = FeedbackWords(messages.notebook_language(nb))
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        self.register_filter("highlight_code", self.filters.get("highlight_code", _Highlight(pygments_lexer=lexer,
                                                                                               parent=self)))
        resources = self._init_resources(resources)
        self.register_filter("filter_data_type", WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata,
                                                                       parent=self, resources=resources))
        return TemplateExporter.from_notebook_node(self, nb, resources, **kw)

    @pass_context
    def markdown2html(self, context, source):
        """HTMLExporter's markdown, remembered like the highlighting (``_remembered``): the
        lesson's prose is the same on every page. A cell with attachments, and pages that embed
        image files, are rendered each time."""
        if context.get("cell", {}).get("attachments") or self.embed_images:
            return super().markdown2html(context, source)
        key = ("markdown", source, self.anchor_link_text, self.exclude_anchor_links,
               repr(sorted(self.lexer_options.items())))
        return _remembered(key, lambda: super(FeedbackExporter, self).markdown2html(context, source))

    def _preprocess(self, nb, resources):
        nb, resources = super()._preprocess(nb, resources)
        _describe_images(nb, resources["feedback"].raw("image_alt"))
        return nb, resources

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = self.compiled
        return environment


def _describe_images(nb, description: str) -> None:
    """Give each image output of ``nb`` (the exporter's own copy, after the passes) that has no
    description of its own ``description`` (the template writes it as ``alt``)."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data") or {}
            for mime in IMAGES:
                if mime in data:
                    sizes = output.setdefault("metadata", {}).setdefault(mime, {})
                    if isinstance(sizes, dict) and not sizes.get("alt"):
                        sizes["alt"] = description


class _Highlight(Highlight2HTML):
    """nbconvert's code highlighting, remembered (``_remembered``)."""

    def __call__(self, source, language=None, metadata=None):
        magics = metadata.get("magics_language") if isinstance(metadata, dict) else None
        options = tuple(sorted((k, repr(v)) for k, v in self.extra_formatter_options.items()))
        key = ("code", source, language or self.pygments_lexer, magics if isinstance(magics, str) else None, options)
        return _remembered(key, lambda: super(_Highlight, self).__call__(source, language, metadata))


MAX_REMEMBERED = 4000  # rendered cells kept (a lesson has about 40 code and 50 markdown cells)
_RENDERED: dict = {}


def _remembered(key: tuple, render) -> str:
    """What ``render()`` made the last time it was asked for ``key`` in this process. Most
    cells of a class's feedback pages are the instructor's, the same on every page:
    rendering their code and prose again was a fifth of the time a page took."""
    if key not in _RENDERED:
        if len(_RENDERED) >= MAX_REMEMBERED:
            _RENDERED.clear()
        _RENDERED[key] = render()
    return _RENDERED[key]
