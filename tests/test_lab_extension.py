"""The course's JupyterLab extension (labextension/, built into lessons/labextension): nbgrader's
Validate button and its report in the notebook's language. test_browser.py presses it in a Chinese
notebook and reads its report; here, without a browser: the committed build is the build of the
committed source, JupyterLab finds it where the set-up puts it, the students' JupyterLab has it in
place of nbgrader's button and the instructor's keeps nbgrader's, and its words exist in every
language."""
from __future__ import annotations

import json
import tomllib

import pytest
from helpers import ROOT

import lessons
from autograder import messages
from lessons.lab_language import validate_words

SOURCE = ROOT / "labextension"
BUILT = ROOT / "lessons" / "labextension"
PLUGIN = "@autograd-lessons/lab:validate"


def test_the_committed_build_is_built_from_the_committed_source():
    source = json.loads((SOURCE / "package.json").read_text())
    built = json.loads((BUILT / "package.json").read_text())
    assert built["name"] == source["name"] == PLUGIN.split(":")[0]
    assert built["version"] == source["version"] and built["dependencies"] == source["dependencies"]
    entry = BUILT / built["jupyterlab"]["_build"]["load"]
    assert entry.is_file() and entry.stat().st_size < 50_000  # JupyterLab's packages are shared, not bundled
    code = "".join(path.read_text() for path in (BUILT / "static").glob("*.js"))
    assert PLUGIN in code and "lessons/api/validate/" in code and "assignments/validate" in code


def test_jupyterlab_finds_it_where_the_set_up_puts_it():
    """An editable install links it (``jupyter labextension develop .``, from ``_jupyter_labextension_paths``),
    a wheel installs it as data files (pyproject.toml)."""
    [path] = lessons._jupyter_labextension_paths()
    assert (ROOT / "lessons" / path["src"]).resolve() == BUILT and path["dest"] == PLUGIN.split(":")[0]
    with (ROOT / "pyproject.toml").open("rb") as f:
        data_files = tomllib.load(f)["tool"]["setuptools"]["data-files"]
    assert data_files["share/jupyter/labextensions/@autograd-lessons/lab"] == ["lessons/labextension/package.json"]
    assert data_files["share/jupyter/labextensions/@autograd-lessons/lab/static"] == ["lessons/labextension/static/*"]
    from jupyterlab_server.config import get_federated_extensions
    from jupyter_core.paths import jupyter_path

    assert PLUGIN.split(":")[0] in get_federated_extensions(jupyter_path("labextensions"))


@pytest.mark.parametrize("role, ours", [("student", True), ("instructor", False)])
def test_students_get_the_courses_button_and_the_instructor_nbgraders(role, ours):
    config = json.loads((ROOT / "lessons" / "lab_config" / role / "labconfig" / "page_config.json").read_text())
    disabled = config["disabledExtensions"]
    assert disabled[PLUGIN] is not ours and disabled["@jupyter/nbgrader:validate-assignment"] is ours


@pytest.mark.parametrize("lang", messages.LANGUAGES)
def test_its_words_exist_in_every_language(lang):
    english, words = validate_words("en"), validate_words(lang)
    assert set(words) == set(english) and all(words.values())
    assert ("{old}" in words["type_changed"]) and ("{new}" in words["type_changed"]) and "{error}" in words["cannot_validate"]
    if lang != "en":
        assert words["button"] != english["button"] and words["title"] != english["title"]
    assert validate_words("xx") == english
