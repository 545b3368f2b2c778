"""JupyterLab's interface in the lessons' language (lessons/lab_language.py), without a browser
(test_browser.py opens it in Chinese and, through a link, in Spanish): each language's setting
names an installed language pack, ``make lab LANG=zh`` starts the server with it and on the
Chinese lessons, and Binder's links save it as Settings › Language does."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
from importlib.metadata import entry_points
from types import SimpleNamespace

import pytest
from helpers import ROOT

from lessons import lab, lab_language


def test_each_language_sets_an_installed_pack():
    installed = {e.name for e in entry_points(group="jupyterlab.languagepack")}
    locales = {lang: lab_language.locale(lang) for lang in lab_language.LANGUAGES}
    assert locales == {"en": "en", "es": "es_ES", "pt": "pt_BR", "zh": "zh_CN", "fr": "fr_FR", "sv": "sv_SE"}
    assert {v for k, v in locales.items() if k != "en"} <= installed
    # no Swedish pack on PyPI: the course's own (lessons/lab_locale/sv_SE), and the README says so
    assert "no JupyterLab language pack for Swedish" in (ROOT / "README.md").read_text()
    with pytest.raises(ValueError):
        lab_language.locale("de")


def test_make_lab_in_a_language_opens_its_lessons(tmp_path):
    (tmp_path / "release" / "zh" / "01_requires_grad").mkdir(parents=True)
    (tmp_path / "release" / "01_requires_grad").mkdir()
    argv, _, _ = lab.command("student", tmp_path, lang="zh")
    assert f"--LabApp.app_settings_dir={ROOT / 'lessons/lab_config/language/zh'}" in argv
    assert "--LabApp.default_url=/lab/tree/zh" in argv
    argv, _, _ = lab.command("student", tmp_path, lang="sv")  # the course's pack, no lessons in this course
    assert f"--LabApp.app_settings_dir={ROOT / 'lessons/lab_config/language/sv'}" in argv
    assert not any("default_url" in a for a in argv)
    argv, _, _ = lab.command("instructor", tmp_path, lang="es")
    assert f"--LabApp.default_url={lab.INSTRUCTOR_URL}" in argv and any("language/es" in a for a in argv)
    # a Binder server's root is the course, make lab's is release/
    assert lab_language.lessons_folder(tmp_path, "zh") == "release/zh"
    assert lab_language.lessons_folder(tmp_path / "release", "zh") == "zh"
    assert lab_language.lessons_folder(tmp_path, "en") == "release"


def make(*args, lang_env=None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "MAKEFLAGS", "MAKELEVEL")}
    if lang_env:
        env["LANG"] = lang_env
    return subprocess.run(["make", "-s", "-C", str(ROOT), "--eval", 'show-lang: ; @echo "[$$LANG]"', *args],
                          env=env, capture_output=True, text=True, check=True).stdout


def test_make_takes_lang_from_its_command_line_only_and_keeps_it_out_of_the_locale():
    assert "-m lessons.lab --lang zh" in make("-n", "lab", "LANG=zh")
    assert "--lang" not in make("-n", "lab", lang_env="C.UTF-8")
    assert make("show-lang", "LANG=zh").strip() == "[]"
    assert make("show-lang", lang_env="C.UTF-8").strip() == "[C.UTF-8]"


def test_a_link_saves_the_language_as_settings_language_does(tmp_path):
    settings = tmp_path / "user-settings"
    path = settings / "@jupyterlab" / "translation-extension" / "plugin.jupyterlab-settings"
    path.parent.mkdir(parents=True)
    path.write_text('{\n  // a comment, as JupyterLab writes\n  "stringsPrefix": "!!",\n  "locale": "en"\n}')
    assert lab_language.save_locale(settings, "zh_CN") == path
    assert json.loads(path.read_text()) == {"stringsPrefix": "!!", "locale": "zh_CN"}

    course = tmp_path / "course"
    (course / "release" / "es" / "01_requires_grad").mkdir(parents=True)
    redirects = []
    handler = SimpleNamespace(serverapp=SimpleNamespace(root_dir=str(course), extension_manager=SimpleNamespace(
        extension_apps={"jupyterlab": [SimpleNamespace(user_settings_dir=str(settings))]})),
        base_url="/user/ana/", redirect=redirects.append)
    asyncio.run(lab_language.LanguageHandler.get.__wrapped__(handler, "es", "01_requires_grad/01_requires_grad.ipynb"))
    assert redirects == ["/user/ana/lab/tree/release/es/01_requires_grad/01_requires_grad.ipynb"]
    assert json.loads(path.read_text())["locale"] == "es_ES"
