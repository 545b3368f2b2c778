"""JupyterLab's own words on the screens a student of the course uses, where JupyterLab's
language packs leave them in English.

Measured on JupyterLab 4.6.6 with the 4.5 packs (``benchmarks/lab_strings.py`` opens a
student's JupyterLab in Chromium and reads every menu and submenu, the file browser and its
context menu, the notebook's toolbar and cell menu, the status bar with the kernel's states, the
side panels, the launcher and the dialogs a student meets: 333 of JupyterLab's strings, language
and file-type names left aside; ``student_strings.json`` lists them): the Spanish pack leaves 160
of them in English (among them the kernel's status, *Idle* and *Busy*, the menus *Run*, *Kernel*
and *Tabs*, *Run Selected Cell*), the Portuguese (Brazil) one 159 (*File*, *Edit*, *View*,
*Settings*, *Help*, *Notebook*), the Chinese and French ones the 11 strings JupyterLab added
after its 4.5 packs. PyPI has no Swedish pack at all. With the course's strings, all 333 are
translated in every language; nine more JupyterLab shows in English in every language, its code
handing them no translator (the kernel-died dialog's title and button, *Open With*, a few
tooltips and labels for screen readers).

Where a pack's translation is wrong (the Spanish one gives *New Notebook* the text of *New
Console for Notebook*) or names a thing with another word than the course does (the Spanish
one calls the kernel *intérprete*, *núcleo* and *Kernel*; the course says *kernel*, and
*salidas* for outputs; the Portuguese one says *caderno* where the course says *notebook*), the
course's word replaces it, on those screens (``lessons/locale/glossary.toml``).

The course's translations of those strings are in JupyterLab's own format, one folder per
JupyterLab locale: ``<locale>/<domain>.json`` (``jupyterlab`` for JupyterLab's words,
``notebook`` for Jupyter Notebook's lab extension), keys as JupyterLab's (``msgid`` or
``context\\x04msgid``). They reach the student two ways, both installed by the course's set-up
(``pip install -e .``), nothing in the environment patched:

* ``sv_SE`` is a language pack of its own (the ``jupyterlab.languagepack`` entry point in
  ``pyproject.toml``): Settings › Language lists *Svenska*, and any JupyterLab of the
  environment can use it.
* For the locales that have a pack, the student's JupyterLab asks the course's server
  extension for its translations (``translationsApiUrl`` in ``lab_config/student``'s page
  configuration): ``TranslationsHandler`` answers as JupyterLab's own handler does, with the
  course's strings added where the pack has none. (JupyterLab's documented way to add
  strings to a pack, a package declaring the ``jupyterlab.locale`` entry point, cannot do
  it: jupyterlab_server merges such data into a pack's domain only when the package's
  ``version`` is newer than the pack's, and the packs' version is the word ``jupyterlab``,
  which ``packaging`` cannot parse: every translation request of that locale then fails
  with ``InvalidVersion``, and JupyterLab falls back to English altogether.)
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

from jupyterlab_server.translation_utils import SYS_LOCALE
from jupyterlab_server.translations_handler import TranslationsHandler

HERE = Path(__file__).resolve().parent
DOMAINS = ("jupyterlab", "notebook", "jupyterlab_widgets")


@functools.cache
def course_strings(locale: str) -> dict:
    """{domain: {key: [translation]}} of the course's translations of JupyterLab's strings for
    ``locale`` (e.g. ``es_ES``); {} for a locale the course adds nothing to."""
    folder = HERE / locale
    if not locale.replace("_", "").isalnum() or not folder.is_dir():
        return {}
    found = {}
    for domain in DOMAINS:
        path = folder / f"{domain}.json"
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
            found[domain] = {key: value for key, value in data.items() if key}
    return found


def translated(value) -> bool:
    """Whether a gettext JSON entry holds a translation (packs write an empty one as "")."""
    return isinstance(value, list) and any(isinstance(v, str) and v for v in value)


def with_course_strings(data: dict, locale: str) -> dict:
    """JupyterLab's translation data of ``locale`` ({domain: gettext JSON}), with the course's
    strings in it: each is either one the pack does not translate, or one whose translation
    the course corrects (``tests/test_lab_locale.py`` holds them to that). A locale with no
    pack installed gets nothing (JupyterLab then says it is not installed)."""
    if not data:
        return data
    for domain, strings in course_strings(locale).items():
        if domain in data:
            data[domain].update(strings)
    return data


class CourseTranslationsHandler(TranslationsHandler):
    """JupyterLab's translations handler (``/lab/api/translations``), its answer for a locale
    with the course's strings added (``with_course_strings``). Served at
    ``/lessons/api/translations`` by ``lessons.lab_language``."""

    _locale: str | None = None

    async def get(self, locale: str | None = None) -> None:
        self._locale = SYS_LOCALE if locale == "default" else locale
        await super().get(locale)

    def finish(self, chunk=None, *args, **kwargs):
        if self._locale and isinstance(chunk, str):
            answer = json.loads(chunk)
            answer["data"] = with_course_strings(answer.get("data") or {}, self._locale)
            chunk = json.dumps(answer)
        return super().finish(chunk, *args, **kwargs)


def handler_settings(serverapp) -> dict:
    """The settings JupyterLab's own translations handler was given (its settings directories,
    which say the user's language), from the JupyterLab extension of ``serverapp``."""
    for apps in serverapp.extension_manager.extension_apps.values():
        for app in apps:
            for spec in getattr(app, "handlers", []):
                if len(spec) > 2 and spec[1] is TranslationsHandler:
                    return dict(spec[2])
    raise LookupError("JupyterLab's translations handler is not loaded")
