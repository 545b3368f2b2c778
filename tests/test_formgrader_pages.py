"""Formgrader's own pages (nbgrader's ``.tpl`` templates) in the instructor's server escape what
they print (``lessons.lab.escape_formgrader_pages``): a student id holding markup, in the
gradebook or in a page's address, stays text. Every template is rendered with such values, and
a real instructor's server answers an address that carries them."""
from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
from browser_helpers import jupyter_lab
from helpers import ROOT, isolated_env
from jinja2 import Environment, FileSystemLoader
from nbgrader.server_extensions.formgrader import handlers
from pages import elements, live

from lessons import lab

# in an element, in an attribute and in a script's string, each closed and a new one opened
ID = "<img src=x onerror=alert(1)>\"'><script>alert(2)</script>"
HONEST = "alice"
# (formgrade_404.tpl imports formgrade_macros.tpl, which nbgrader 0.9 no longer has: it never renders)
TEMPLATES = sorted(p.name for p in Path(handlers.template_path).glob("*.tpl") if p.name != "formgrade_404.tpl")


def values(text: str) -> dict:
    """What formgrader's handlers give its templates, every string ``text``."""
    resources = {"assignment_id": text, "notebook_id": text, "submission_id": text, "index": 0, "total": 1,
                 "base_url": "", "student": text, "last_name": text, "first_name": text, "notebook_path": text,
                 "filename": text}
    return {"base_url": "", "url_prefix": text, "student_id": text, "assignment_id": text, "notebook_id": text,
            "course_id": text, "exchange": text, "exchange_missing": True, "current_config": text,
            "course_dir": text, "windows": False, "error_code": 500, "default_timezone": "UTC",
            "resources": resources}


def nbgraders_environment() -> Environment:
    """The environment formgrader renders its pages with (``FormgradeExtension.init_tornado_settings``)."""
    return Environment(loader=FileSystemLoader([handlers.template_path]))


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_page_prints_values_as_text(template):
    settings = {"nbgrader_jinja2_env": nbgraders_environment()}
    lab.escaping(settings)
    page = settings["nbgrader_jinja2_env"].get_template(template).render(**values(ID))
    honest = settings["nbgrader_jinja2_env"].get_template(template).render(**values(HONEST))
    assert live(page, honest) == [], template
    assert [tag for tag, _ in elements(page)] == [tag for tag, _ in elements(honest)], template  # not one element more
    assert settings["nbgrader_jinja2_env"].get_template(template).render(**values(HONEST)) == \
        nbgraders_environment().get_template(template).render(**values(HONEST))  # a plain id: the page is nbgrader's


def test_nbgraders_own_environment_runs_a_student_id():
    """What the escaping is for: nbgrader's pages of a student print the id as markup."""
    env = nbgraders_environment()
    template = "manage_students_assignments.tpl"
    page = env.get_template(template).render(**values(ID))
    assert live(page, env.get_template(template).render(**values(HONEST)))


def test_escaping_is_installed_whichever_loads_first():
    from nbgrader.server_extensions.formgrader.formgrader import FormgradeExtension

    class Server:  # what the extension reads of a server: its settings, its log
        class web_app:
            settings = {"nbgrader_jinja2_env": nbgraders_environment()}

        class log:
            info = warning = staticmethod(lambda *args: None)

    lab._load_jupyter_server_extension(Server)  # formgrader loaded first: its environment is replaced
    assert Server.web_app.settings["nbgrader_jinja2_env"].autoescape
    assert getattr(FormgradeExtension.init_tornado_settings, "escaping", False)  # formgrader loads later: wrapped
    wrapped = FormgradeExtension.init_tornado_settings
    lab.escape_formgrader_pages(Server)
    assert FormgradeExtension.init_tornado_settings is wrapped  # once


@pytest.mark.slow
def test_the_instructors_server_answers_a_students_address_with_text(tmp_path):
    """``make instructor``'s server on a course whose gradebook holds a student id with markup:
    formgrader's pages of that student, reached by their address, show it as text."""
    from nbgrader.api import Gradebook

    course, home = tmp_path / "course", tmp_path / "home"
    course.mkdir()
    (course / "nbgrader_config.py").write_text((ROOT / "nbgrader_config.py").read_text())
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "autograd-lessons") as gb:
        gb.add_assignment("03_zeroing_grad")
        gb.add_student(ID, first_name=ID, last_name=ID)
    argv, changes, cwd = lab.command("instructor", course)
    env = isolated_env(home)
    env.update(changes)
    with jupyter_lab(argv, env, cwd, home / "instructor.log") as url:
        pages = {}
        for path in (f"manage_students/{quote(ID, safe='')}", f"manage_students/{quote(ID, safe='')}/03_zeroing_grad",
                     "manage_students/alice", "manage_students/alice/03_zeroing_grad"):
            with urllib.request.urlopen(f"{url}/formgrader/{path}", timeout=60) as answer:
                pages[path] = answer.read().decode()
        with urllib.request.urlopen(f"{url}/formgrader/api/students", timeout=60) as answer:
            assert ID in {s["id"] for s in json.loads(answer.read())}  # (the gradebook holds it)
    hostile = [page for path, page in pages.items() if "alice" not in path]
    honest = [page for path, page in pages.items() if "alice" in path]
    for page, baseline in zip(hostile, honest):
        assert live(page, baseline) == [] and "&lt;img src=x onerror=alert(1)&gt;" in page
        assert [tag for tag, _ in elements(page)] == [tag for tag, _ in elements(baseline)]
