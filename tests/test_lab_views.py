"""The students' and the instructor's JupyterLab are configured in one place (lessons.lab,
lessons/lab_config/): make and Binder use it, and it names nbgrader's real plug-ins.
The browser checks are in test_browser_instructor.py."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbgrader
import pytest
from helpers import ROOT

from lessons import lab

NBGRADER = Path(nbgrader.__file__).parent
STUDENT = ROOT / "lessons/lab_config" / "student"


def test_binder_start_script_gives_the_students_configuration():
    for before in (None, "/somewhere/else"):
        env = {k: v for k, v in os.environ.items() if k != "JUPYTER_CONFIG_PATH"}
        if before:
            env["JUPYTER_CONFIG_PATH"] = before
        out = subprocess.run([str(ROOT / "start"), "sh", "-c", 'printf %s "$JUPYTER_CONFIG_PATH"'],
                             env=env, capture_output=True, text=True, check=True).stdout
        assert out == lab.config_path("student", before)
    assert out.split(os.pathsep)[0] == str(STUDENT)


def test_each_role_opens_its_own_folder_and_configuration(tmp_path):
    argv, env, cwd = lab.command("student", tmp_path, ["--port=9"])
    assert cwd == tmp_path and argv[-1] == "--port=9"
    assert f"--ServerApp.root_dir={tmp_path / 'release'}" in argv
    assert env["JUPYTER_CONFIG_PATH"].split(os.pathsep)[0] == str(STUDENT)
    assert not any("default_url" in a for a in argv)
    argv, env, _ = lab.command("instructor", tmp_path)
    assert f"--ServerApp.root_dir={tmp_path}" in argv and f"--LabApp.default_url={lab.INSTRUCTOR_URL}" in argv
    assert env["JUPYTER_CONFIG_PATH"].split(os.pathsep)[0] == str(ROOT / "lessons/lab_config" / "instructor")
    with pytest.raises(ValueError):
        lab.config_path("teacher")


def test_one_view_replaces_the_other_on_the_path():
    """E.g. `make instructor` in a Binder terminal, where `start` put the student's first."""
    inherited = lab.config_path("student", "/etc/extra")
    path = lab.config_path("instructor", inherited).split(os.pathsep)
    assert path == [str(ROOT / "lessons/lab_config" / "instructor"), "/etc/extra"]
    assert lab.config_path("student", None) == str(STUDENT)


def test_the_instructors_configuration_turns_on_what_the_students_turns_off():
    """So that it wins over a student configuration installed for everyone."""
    instructor = ROOT / "lessons/lab_config" / "instructor"
    for part, keys in (("labconfig/page_config.json", ["disabledExtensions"]),
                       ("jupyter_server_config.json", ["ServerApp", "jpserver_extensions"])):
        theirs, ours = (json.loads((d / part).read_text()) for d in (STUDENT, instructor))
        for key in keys:
            theirs, ours = theirs[key], ours[key]
        nbgrader_part = {k: v for k, v in theirs.items() if "nbgrader" in k}
        assert nbgrader_part and {k: not v for k, v in nbgrader_part.items()} == \
            {k: v for k, v in ours.items() if "nbgrader" in k}


def test_make_starts_both_views_through_lessons_lab():
    makefile = (ROOT / "Makefile").read_text()
    recipe = lambda target: re.search(rf"^{target}:.*\n\t(.+)$", makefile, re.M).group(1)  # noqa: E731
    assert "-m lessons.lab" in recipe("lab") and "--instructor" not in recipe("lab")
    assert "-m lessons.lab --instructor" in recipe("instructor")


def test_students_configuration_names_nbgraders_real_plugins_and_extensions():
    """A renamed plug-in in a new nbgrader would silently show the instructor's tools again."""
    disabled = json.loads((STUDENT / "labconfig" / "page_config.json").read_text())["disabledExtensions"]
    bundle = "".join(p.read_text() for p in (NBGRADER / "labextension" / "static").glob("*.js"))
    plugins = set(re.findall(r'"(@jupyter/nbgrader:[\w-]+)"', bundle))
    assert {"@jupyter/nbgrader:validate-assignment", "@jupyter/nbgrader:assignment-list"} <= plugins
    nbgrader_off = {p for p in disabled if p.startswith("@jupyter/nbgrader:")}
    # nbgrader's Validate button is off too: the course's own (lessons/labextension) speaks the
    # notebook's language
    assert nbgrader_off == plugins - {"@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:menu"}
    assert disabled["@jupyterlab/apputils-extension:announcements"] is True

    server = json.loads((STUDENT / "jupyter_server_config.json").read_text())["ServerApp"]["jpserver_extensions"]
    # nbgrader's own list of its server extensions, installed in the environment
    shipped = Path(sys.prefix) / "etc/jupyter/jupyter_server_config.d/nbgrader.json"
    known = json.loads(shipped.read_text())["ServerApp"]["jpserver_extensions"]
    ours = {k: v for k, v in server.items() if k.startswith("lessons.")}
    assert ours == {"lessons.lab_language": True}  # JupyterLab in the lessons' language (Binder's links)
    server = {k: v for k, v in server.items() if k not in ours}
    assert set(server) <= set(known)
    assert server == {"nbgrader.server_extensions.formgrader": False,
                      "nbgrader.server_extensions.course_list": False}
