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

from jinja2.bccache import BytecodeCache
from markupsafe import Markup, escape
from nbconvert.exporters import HTMLExporter
from traitlets import default, validate

from ... import messages

TEMPLATES = str(Path(__file__).parent / "templates")
NBCONVERT_ALT = "No description has been provided for this image"  # HTMLExporter's, for images without one
HTML_LANG = {"pt": "pt-BR", "zh": "zh-Hans"}  # the course's codes as HTML's lang attribute


class FeedbackWords:
    """The feedback page's own words in one language, as safe HTML: ``say(key, **fields)`` is
    the ``feedback.<key>`` message, escaped, with each field escaped into it (a field that is
    already Markup, such as another ``say``, stays as it is)."""

    def __init__(self, lang: str):
        self.lang = HTML_LANG.get(lang, lang)
        self.code = lang

    def say(self, key: str, **fields) -> Markup:
        template = messages._GRADER.raw(f"feedback.{key}", self.code)
        return escape(template).format(**{name: escape(value) for name, value in fields.items()})


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
        resources = {} if resources is None else resources
        resources["feedback"] = words = FeedbackWords(messages.notebook_language(nb))
        html, resources = super().from_notebook_node(nb, resources, **kw)
        # nbconvert gives every image without a description this one, in English
        if words.code != "en":
            html = html.replace(f'alt="{NBCONVERT_ALT}"', f'alt="{words.say("image_alt")}"')
        return html, resources

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = self.compiled
        return environment
