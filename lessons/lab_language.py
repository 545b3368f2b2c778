"""JupyterLab's interface in the student's language, and the file browser on their lessons.

JupyterLab's own mechanism chooses the interface language: the ``locale`` setting of
``@jupyterlab/translation-extension:plugin``, with the language packs that ``pyproject.toml``
installs (PyPI has none for Swedish: a Swedish student's JupyterLab stays English). Two ways
set it, nothing of JupyterLab is changed:

* ``make lab LANG=zh`` (``python -m lessons.lab --lang zh``): the server's application settings
  directory is ``lab_config/language/zh``, whose ``overrides.json`` makes ``zh_CN`` the default
  of that setting, for this server only (a language the student picks in Settings › Language
  still wins, as over any default); JupyterLab opens on ``release/zh/``.
* JupyterLab's own words, where its packs leave them English (lessons/lab_locale): the
  translations JupyterLab asks for are served here, the course's strings added.
* A link, for Binder (one server for whatever link was opened): ``<server>/lessons/zh`` or
  ``<server>/lessons/zh/01_requires_grad/01_requires_grad.ipynb``. This server extension (the
  students' ``lab_config/student`` enables it) saves the language in the user's settings, as
  Settings › Language does, and redirects to that folder or notebook of ``release/zh/``.
"""
from __future__ import annotations

import json
from html import escape
from pathlib import Path
from urllib.parse import quote

from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web

from autograder.messages import LANGUAGES

from . import lesson_fetch, text

# lab_config/language/<lang>/overrides.json: the locale setting for each language with a pack
SETTINGS = Path(__file__).resolve().parent / "lab_config" / "language"
PLUGIN = "@jupyterlab/translation-extension:plugin"


def settings_dir(lang: str) -> Path | None:
    """The application settings directory that makes ``lang`` JupyterLab's default language,
    or None for a language JupyterLab has no pack for (its interface stays English)."""
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, not {lang!r}")
    folder = SETTINGS / lang
    return folder if (folder / "overrides.json").exists() else None


def locale(lang: str) -> str | None:
    """JupyterLab's locale for ``lang`` (e.g. ``zh_CN``), None where it has no pack."""
    folder = settings_dir(lang)
    return json.loads((folder / "overrides.json").read_text())[PLUGIN]["locale"] if folder else None


def lessons_folder(root: Path, lang: str) -> str:
    """The folder of ``lang``'s lessons, relative to a server's root: ``release/zh`` where the
    root is the course (Binder), ``zh`` where it is ``release/`` (``make lab``)."""
    sub = "" if lang == "en" else lang
    for base in ("release", ""):
        folder = "/".join(p for p in (base, sub) if p)
        if (root / folder / "01_requires_grad").is_dir():
            return folder
    return ""


def server_options(lang: str, root: Path | None = None) -> list[str]:
    """``jupyter lab`` options for a server in ``lang``: its application settings directory
    (which replaces the environment's ``share/jupyter/lab/settings``) and, given the server's
    ``root``, JupyterLab opened on that language's lessons."""
    folder = settings_dir(lang)
    options = [f"--LabApp.app_settings_dir={folder}"] if folder else []
    target = lessons_folder(Path(root), lang) if root is not None else ""
    return options + ([f"--LabApp.default_url=/lab/tree/{quote(target)}"] if target else [])


def _user_settings_dir(serverapp) -> str:
    for apps in serverapp.extension_manager.extension_apps.values():
        for app in apps:
            if getattr(app, "user_settings_dir", None):
                return app.user_settings_dir
    from jupyterlab.commands import get_user_settings_dir
    return get_user_settings_dir()


def save_locale(user_settings_dir: str | Path, value: str) -> Path:
    """Save ``value`` as the user's ``locale`` setting, keeping their other settings of the
    translation plug-in; what Settings › Language saves."""
    import json5
    path = Path(user_settings_dir, *PLUGIN.split(":")[0].split("/")) / f"{PLUGIN.split(':')[1]}.jupyterlab-settings"
    current = json5.loads(path.read_text()) if path.exists() else {}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**current, "locale": value}, indent=2))
    return path


class LanguageHandler(JupyterHandler):
    """``/lessons/<lang>[/<path under that language's lessons>]``. Where the server's root has
    no published lessons (a student's home on the course's JupyterHub), a lesson's path opens
    the student's own copy, fetched and put in ``lang`` first if they have none
    (``lesson_fetch``), or says in ``lang`` that it is not released yet."""

    @web.authenticated
    async def get(self, lang: str, path: str = "") -> None:
        save_locale(_user_settings_dir(self.serverapp), locale(lang) or "default")
        root = Path(self.serverapp.root_dir)
        folder = lessons_folder(root, lang)
        path = (path or "").strip("/")
        if not folder and not await lesson_fetch.open_lesson(root, path, lang):
            self.not_released(lang, lesson_fetch.lesson_of(path))
            return
        target = "/".join(p for p in (folder, path) if p)
        self.redirect(url_path_join(self.base_url, "lab", "tree", quote(target)))

    def not_released(self, lang: str, assignment: str) -> None:
        message = text.raw("lab.not_released", lang).format(lesson=assignment)
        lab = url_path_join(self.base_url, "lab")
        self.set_status(404)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(f'<!DOCTYPE html><html lang="{lang}"><meta charset="utf-8"><title>{escape(assignment)}</title>'
                    f'<p id="not-released">{escape(message)}</p>'
                    f'<p><a href="{escape(lab)}">{escape(text.raw("lab.open_lab", lang))}</a></p></html>')


def validate_words(lang: str) -> dict:
    """The words of the course's Validate button and report (the ``[validate]`` section of
    ``lessons/locale/<lang>.toml``) in ``lang``, each missing one in English; English for a
    language the course does not have."""
    english = text.raw("validate", "en")
    words = text.raw("validate", lang if lang in LANGUAGES else "en")
    return {key: words.get(key, value) for key, value in english.items()}


class ValidateWordsHandler(JupyterHandler):
    """``/lessons/api/validate/<lang>``: the words the course's Validate button shows on a notebook
    in ``lang`` (labextension/src/index.js asks with the notebook's ``autograd_lessons.language``)."""

    @web.authenticated
    def get(self, lang: str) -> None:
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(validate_words(lang)))


def _jupyter_server_extension_points():
    return [{"module": "lessons.lab_language"}]


def _load_jupyter_server_extension(serverapp) -> None:
    from .lab_locale import CourseTranslationsHandler, handler_settings

    pattern = url_path_join(serverapp.base_url, "lessons", f"({'|'.join(LANGUAGES)})(?:/(.*))?")
    handlers = [(pattern, LanguageHandler),
                (url_path_join(serverapp.base_url, "lessons", "api", "validate", r"([a-z]{2})"), ValidateWordsHandler)]
    # JupyterLab's words where its language packs have none (lessons/lab_locale): the students'
    # page configuration (lab_config/student/labconfig) points JupyterLab's translations here
    translations = url_path_join(serverapp.base_url, "lessons", "api", "translations")
    try:
        settings = handler_settings(serverapp)
    except LookupError:  # no JupyterLab on this server: nothing asks for its translations
        settings = None
    if settings is not None:
        handlers += [(f"{translations}/?", CourseTranslationsHandler, settings),
                     (f"{translations}/(?P<locale>.*)", CourseTranslationsHandler, settings)]
    serverapp.web_app.add_handlers(".*$", handlers)

