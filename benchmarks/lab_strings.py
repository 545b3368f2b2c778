"""Which of JupyterLab's own strings a student of the course meets, and which each language leaves in English.

Starts a student's JupyterLab (``lessons/lab_config/student``) on a copy of ``release/``, in
English, opens lesson 3 in Chromium and reads what a student reads of JupyterLab itself: every
menu of the menu bar and every submenu, the file browser and its context menu, the notebook's
toolbar and a cell's context menu, the status bar, each side panel, the launcher, and the dialogs
a student meets (restart the kernel, restart and run all, the kernel died, close an unsaved
notebook). Each text is matched to JupyterLab's msgids (those of the installed language packs,
and those JupyterLab 4.6's own code passes to its translator, read from its bundles); names that
every pack keeps as they are (programming languages, file formats) are left out.

It prints, for each locale, how many of those strings its language pack translates and how many
the student's JupyterLab shows translated once the course's strings are added (lessons/lab_locale);
``--write`` adds them to ``lessons/lab_locale/student_strings.json`` (what the tests check; a
string a run meets stays there, as what a student sees varies with the kernel's state);
``--lang es`` reads the same screens in Spanish and lists JupyterLab's strings still in English.

Usage: python benchmarks/lab_strings.py [--write] [--lang es]

Last run (JupyterLab 4.6.6, packs 4.5.post3, 66 s): 333 strings; the packs translate es_ES 173,
pt_BR 174, zh_CN 322, fr_FR 322, sv_SE none (no pack); with the course's, all 333 in every
language. On screen in Spanish (``--lang es``) no JupyterLab string is left in English but nine
JupyterLab shows in English in every language, Chinese included (``browser_helpers.
NEVER_TRANSLATED``: its code hands them no translator).
"""
from __future__ import annotations

import argparse
import glob
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import browser_helpers  # noqa: E402
from helpers import isolated_env  # noqa: E402

from lessons import lab as course_lab  # noqa: E402
from lessons import lab_locale  # noqa: E402
from lessons.lab_language import locale, server_options  # noqa: E402

SHARE = Path(sys.prefix) / "share" / "jupyter"
LOCALES = ("es_ES", "pt_BR", "zh_CN", "fr_FR", "sv_SE")
DOMAINS = {"jupyterlab": f"{SHARE}/lab/static/*.js",
           "notebook": f"{SHARE}/labextensions/@jupyter-notebook/**/*.js",
           "jupyterlab_widgets": f"{SHARE}/labextensions/@jupyter-widgets/**/*.js"}
CALL = re.compile(r'\.(?:__|_n)\(\s*"((?:[^"\\]|\\.)*)"|\._p\(\s*"((?:[^"\\]|\\.)*)"\s*,\s*"((?:[^"\\]|\\.)*)"')


def pack(locale_name: str) -> dict:
    from jupyterlab_server.translation_utils import get_language_pack

    return get_language_pack(locale_name)[0] if locale_name != "sv_SE" else {}


def unescaped(text: str) -> str:
    """A JavaScript string literal's text (its escapes, as JSON's)."""
    try:
        return json.loads(f'"{text}"') if "\\" in text else text
    except ValueError:
        return text


def msgids() -> set:
    """{(domain, key)} of JupyterLab's strings: the msgids JupyterLab's code (4.6) passes to the
    translator of each domain, and the keys of the French and Chinese packs (complete for 4.5: menu
    titles come from settings, not code)."""
    in_code = set()
    for domain, pattern in DOMAINS.items():
        for path in glob.glob(pattern, recursive=True):
            for call in CALL.finditer(Path(path).read_text(errors="replace")):
                key = call[1] if call[1] is not None else f"{call[2]}\x04{call[3]}"
                in_code.add((domain, unescaped(key)))
    in_packs = {(domain, key) for locale_name in ("fr_FR", "zh_CN") for domain, data in pack(locale_name).items()
                if domain in DOMAINS for key in data if key}
    return in_code | in_packs


def matched(texts: set, ids: set, titles: set) -> set:
    """The (domain, key) of JupyterLab strings among ``texts``: a text is a msgid, a part of one
    (``Python 3 (ipykernel) | Idle``), or a msgid with %1 filled in; a menu's title takes the
    ``menu`` context."""
    by_msgid = {}
    for domain, key in ids:
        by_msgid.setdefault(key.split("\x04")[-1], set()).add((domain, key))
    # a msgid with placeholders matches a text only by at least four letters of its own
    patterns = [(re.compile("^" + re.sub(r"%\d", ".+", re.escape(m)) + "$"), m) for m in by_msgid
                if re.search(r"%\d", m) and len(re.findall(r"[A-Za-z]", re.sub(r"%\d", "", m))) >= 4]
    found = set()
    for text in texts:
        parts = {text, text.rstrip(":"), *[p.strip() for p in text.split("|")]}
        hits = {entry for part in parts for entry in by_msgid.get(part, ())
                if "\x04" not in entry[1] or (entry[1].startswith("menu\x04") and part in titles)}
        if not hits:
            hits = {entry for rx, m in patterns if rx.match(text) for entry in by_msgid[m] if "\x04" not in entry[1]}
        # a msgid of JupyterLab's own and of an extension's: JupyterLab's
        found |= {(d, k) for d, k in hits if d == "jupyterlab" or ("jupyterlab", k) not in hits}
    return found


# names of languages and formats in the syntax-highlighting menu that one pack keeps and another spells its way
NAMES = {"Javascript", "Scala", "Textile", "RPM Changes", "RPM Spec", "diff"}


def names(found: set) -> set:
    """Strings the packs keep as they are: names (of languages, formats), not words."""
    french, chinese = pack("fr_FR"), pack("zh_CN")
    return {(domain, key) for domain, key in found if key in NAMES
            or french.get(domain, {}).get(key, [""])[0] == key.split("\x04")[-1] == chinese.get(domain, {}).get(key, [""])[0]}


# what the status bar says on the way, each for a moment: the kernel's states, the notebook's modes
TRANSIENT = {"Idle", "Busy", "Starting", "Restarting", "Autorestarting", "Dead", "Connecting", "Initializing",
             "Unknown", "Disconnected", "Terminating", "No Kernel", "Command", "Edit"}


def read_screens(page) -> tuple[set, set]:
    """(every text a student reads of JupyterLab on the open notebook, the menus' titles)."""
    titles = set(browser_helpers.shown_texts(page, "#jp-MainMenu"))
    texts = browser_helpers.lab_surfaces(page, submenus=True)
    titles |= {t for t in texts if t in texts}  # (submenu titles are among the menus' texts)
    cell = page.locator(".jp-NotebookPanel .jp-Cell").nth(2)
    cell.click(button="right")
    page.locator(".lm-Menu").first.wait_for()
    texts |= browser_helpers.shown_texts(page, ".lm-Menu, .jp-NotebookPanel")
    page.keyboard.press("Escape")
    for command in ("notebook:restart-kernel", "notebook:restart-run-all"):
        page.locator(f".jp-NotebookPanel-toolbar [data-command='{command}']").click()
        page.locator(".jp-Dialog").wait_for()
        texts |= browser_helpers.shown_texts(page, ".jp-Dialog")
        page.keyboard.press("Escape")
        page.locator(".jp-Dialog").wait_for(state="detached")
    for tab in page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab").all():
        tab.click()
        browser_helpers.next_frames(page, 4)
        texts |= browser_helpers.shown_texts(page, "#jp-left-stack")
    index = browser_helpers.add_cell_at_end(page, "import os; os._exit(1)")  # the kernel dies
    browser_helpers.start_cell(page, index)
    page.locator(".jp-Dialog").wait_for(timeout=60_000)
    texts |= browser_helpers.shown_texts(page, ".jp-Dialog")
    page.keyboard.press("Escape")
    page.locator(".lm-TabBar-tab.jp-mod-current .lm-TabBar-tabCloseIcon").first.click()  # unsaved
    page.locator(".jp-Dialog").wait_for()
    texts |= browser_helpers.shown_texts(page, ".jp-Dialog")
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Shift+l")  # the launcher
    page.locator(".jp-Launcher").wait_for()
    texts |= browser_helpers.shown_texts(page, ".jp-Launcher")
    return texts | TRANSIENT, titles


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="save lessons/lab_locale/student_strings.json")
    parser.add_argument("--lang", help="also read the screens in this language (es pt zh fr sv)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as p:
        course = Path(scratch) / "course"
        shutil.copytree(ROOT / "release", course / "release", ignore=shutil.ignore_patterns("variants.json"))
        shutil.copy(ROOT / "nbgrader_config.py", course)
        browser = p.chromium.launch(executable_path=browser_helpers.CHROMIUM, args=["--headless", "--no-sandbox"])
        found = {}
        for lang in ["en"] + ([args.lang] if args.lang else []):
            env = isolated_env(Path(scratch) / f"home-{lang}")
            env["JUPYTER_CONFIG_PATH"] = course_lab.config_path("student", env.get("JUPYTER_CONFIG_PATH"))
            argv = [sys.executable, "-m", "jupyter", "lab", f"--ServerApp.root_dir={course}", *server_options(lang)]
            folder = "" if lang == "en" else f"{lang}/"
            with browser_helpers.jupyter_lab(argv, env, course, Path(scratch) / f"{lang}.log") as url:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(f"{url}/lab/tree/release/{folder}03_zeroing_grad/03_zeroing_grad.ipynb?reset")
                page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\| \S+$")).wait_for(timeout=90_000)
                browser_helpers.next_frames(page, 30)
                found[lang] = read_screens(page)
                page.close()
        browser.close()
    texts, titles = found["en"]
    ids = msgids()
    met = matched(texts, ids, titles)
    met -= names(met)
    print(f"JupyterLab strings a student meets: {len(met)}")
    for locale_name in LOCALES:
        theirs = pack(locale_name)
        ours = lab_locale.with_course_strings(json.loads(json.dumps(theirs)), locale_name) if theirs else \
            {d: dict(s) for d, s in lab_locale.course_strings(locale_name).items()}
        by_pack = sum(lab_locale.translated(theirs.get(d, {}).get(k)) for d, k in met)
        shown = sum(lab_locale.translated(ours.get(d, {}).get(k)) for d, k in met)
        print(f"  {locale_name}: {by_pack} translated by its pack, {shown} with the course's strings")
        untranslated = sorted(k for d, k in met if not lab_locale.translated(ours.get(d, {}).get(k)))
        if untranslated:
            print(f"    not translated: {untranslated}")
    listed = {(e["domain"], e["key"]) for e in json.loads((lab_locale.HERE / "student_strings.json").read_text())}
    print(f"  met and not in student_strings.json: {sorted(k for d, k in met - listed)}")
    if args.lang:
        left = browser_helpers.english_on_screen(found[args.lang][0], args.lang)
        print(f"still English on screen in {locale(args.lang)}: {sorted(left) or 'none'} "
              f"(and JupyterLab's own, in every language: {sorted(browser_helpers.NEVER_TRANSLATED)})")
    if args.write:  # what one run meets is added to what earlier runs met (screens vary with the kernel's state)
        met |= listed
        entries = sorted(({"key": k, "domain": d} for d, k in met), key=lambda e: (e["key"].lower(), e["domain"]))
        (lab_locale.HERE / "student_strings.json").write_text(json.dumps(entries, ensure_ascii=False, indent=0) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
