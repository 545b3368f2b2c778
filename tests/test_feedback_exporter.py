"""FeedbackExporter renders exactly nbconvert's HTML, compiling the templates once per process."""
from __future__ import annotations

import re

import jinja2
import nbformat
from helpers import ROOT
from nbconvert.exporters import HTMLExporter
from traitlets.config import Config

from autograder.instructor.passes.feedback_exporter import FeedbackExporter

LESSON = sorted((ROOT / "source").glob("*/*.ipynb"))[0]


def _html(exporter_class, nb) -> str:
    config = Config()
    config.HTMLExporter.template_name = "lab"
    html, _ = exporter_class(config=config).from_notebook_node(nb)
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>", html)


def test_feedback_exporter_renders_the_same_html_and_compiles_templates_once(monkeypatch):
    nb = nbformat.read(LESSON, as_version=4)
    expected = _html(HTMLExporter, nb)
    assert _html(FeedbackExporter, nb) == expected  # first use compiles and keeps the templates
    compiled = []
    original = jinja2.Environment.compile
    monkeypatch.setattr(jinja2.Environment, "compile",
                        lambda self, *a, **k: compiled.append(a) or original(self, *a, **k))
    assert _html(FeedbackExporter, nb) == expected  # a new exporter, as nbgrader makes per student
    assert compiled == []
    assert _html(HTMLExporter, nb) == expected
    assert compiled  # the stock exporter compiles them all again
