"""What the browser tests share: a JupyterLab server on loopback, Debian's Chromium driven by
Playwright, and the Validate button."""
from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# a server only the test reaches: loopback, no token, no browser of its own
SERVER_FLAGS = ["--no-browser", "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=",
                "--ServerApp.password=", "--allow-root"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyter_lab(argv: list, env: dict, cwd: Path, log: Path):
    """``argv`` (a ``jupyter lab`` command) serving on loopback; yields its URL.

    The server binds a port the system picks (``--port=0``) and says which in its runtime file
    (``jpserver-<pid>.json``): a port chosen here and bound later could be taken in between
    by any of the kernels the other test worker starts."""
    with open(log, "w") as out:
        server = subprocess.Popen([*argv, *SERVER_FLAGS, "--port=0"], cwd=cwd, env=env,
                                  stdout=out, stderr=subprocess.STDOUT)
    info = Path(env["JUPYTER_RUNTIME_DIR"]) / f"jpserver-{server.pid}.json"
    try:
        deadline = time.time() + 60
        while True:
            try:
                url = f"http://127.0.0.1:{json.loads(info.read_text())['port']}"
                urllib.request.urlopen(f"{url}/api/status", timeout=2)
                break
            except (OSError, ValueError, KeyError):  # not written yet, half written, not serving yet
                if time.time() > deadline or server.poll() is not None:
                    pytest.fail("JupyterLab did not start:\n" + log.read_text())
                time.sleep(0.5)  # polling: the server gives no other sign that it is ready
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set CHROMIUM)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        yield chromium
        chromium.close()


# The status bar's kernel item, by the interface's language, and the word it ends with once
# the kernel is connected and idle.
KERNEL_ITEM = {"en": ('.jp-StatusBar-TextItem[title^="Change kernel for"]', "Idle"),
               "zh": ('.jp-StatusBar-TextItem[title^="更改 "]', "空闲"),
               "es": ('.jp-StatusBar-TextItem[title^="Cambiar el kernel de"]', "Inactivo")}


def wait_for_idle_kernel(page, lang: str = "en", timeout: int = 90_000) -> None:
    """Wait until the open notebook's kernel is connected and idle, as a student would.

    Why not the toolbar's execution indicator (this suite once waited for it, and Run All
    then failed about one time in four on a fresh or busy machine, waiting 120 s for
    execution counts that never came): JupyterLab 4.6 renders that indicator with
    ``data-status="idle"`` as its *initial* state, before the notebook has a kernel session
    at all, so it is "idle" about a second before the session exists (longer under load).
    A Run All in that window never runs: while the session is being created, JupyterLab
    skips every code cell (``CodeCell.execute`` returns at once when
    ``sessionContext.session?.kernel`` is missing, and clears the prompt), and before a
    kernel is even pending it opens the "Select Kernel" dialog instead (JupyterLab issue
    #8490, "Counter and outputs of a cell are empty if running it before kernel is
    ready"). Reproduced by running all cells right after the notebook's panel appears:
    no cell got a count, three times out of three; and with the old wait, on a fresh server
    with one core kept busy, Run All ran nothing in 12 of 16 notebook openings (with this
    wait: 16 of 16 ran, with both cores kept busy). The status bar's kernel item shows the
    session context's own status, which says Idle only once a kernel is connected and
    idle, as a student would wait for it.

    The same wait keeps JupyterLab's last move of focus (back to the notebook) before the
    test's first click or key: with the indicator's wait and three busy processes beside
    the test, a command palette opened next was closed by that move in 2 of 3 runs of the
    instructor's view tests; with this wait, 4 runs of 4 passed.
    """
    selector, idle = KERNEL_ITEM[lang]
    page.locator(selector, has_text=re.compile(rf"\| {idle}$")).wait_for(timeout=timeout)


def open_notebook(browser, url: str, path: str, lang: str = "en") -> tuple:
    """A new page with the notebook at ``path`` open (the workspace reset) and its kernel
    connected and idle; and the addresses the page has asked for, so far and from now on."""
    page, requested = browser.new_page(viewport={"width": 1400, "height": 1000}), []
    page.on("request", lambda request: requested.append(request.url))
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{url}/lab/tree/{path}?reset")
    wait_for_idle_kernel(page, lang)
    return page, requested


def next_frames(page, frames: int = 2) -> None:
    """Wait until the page has drawn ``frames`` more frames: JupyterLab's widgets (Lumino)
    apply a change, such as a new size or a palette's filter, on the next animation frame."""
    page.evaluate("n => new Promise(done => { const step = k => k ? requestAnimationFrame(() => step(k - 1)) : done(); step(n); })",
                  frames)


# The Validate button on a notebook's toolbar: in a student's JupyterLab the course's (labextension/,
# in the notebook's language), in the instructor's nbgrader's own; both carry this class. Each shows
# its report in a dialog of its own class only once the report is there.
VALIDATE_BUTTON = ".jp-NotebookPanel-toolbar .validate-button"
VALIDATION_REPORT = ".jp-Dialog.lessons-ValidateDialog, .jp-Dialog.nbgrader-SuccessDialog, .jp-Dialog.nbgrader-ErrorDialog"


def validate(page) -> str:
    """Press the Validate button on the open notebook; the report it shows."""
    page.locator(VALIDATE_BUTTON).filter(visible=True).click()
    dialog = page.locator(VALIDATION_REPORT)
    dialog.wait_for(timeout=120_000)
    text = dialog.inner_text()
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached", timeout=30_000)
    return text


# the cells of the notebook on screen that show an error (or anything else on stderr)
ERRORS = """() => [...document.querySelectorAll('.jp-NotebookPanel .jp-Cell')].flatMap((c, i) =>
    c.querySelector('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]') ? [i] : [])"""


def unexpected_errors(page, nb) -> list:
    """The cells of ``nb``, open in ``page``, that show an error the notebook does not expect
    (a cell that may fail before the student answers is tagged ``raises-exception``): their code."""
    tagged = {i for i, c in enumerate(nb.cells) if "raises-exception" in c.metadata.get("tags", [])}
    return [nb.cells[i].source[:80] for i in page.evaluate(ERRORS) if i not in tagged]


# A notebook's cells, as a student edits and runs them

def cell(page, index: int):
    """Cell ``index`` (counting every cell, from 0) of the notebook on screen."""
    return page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(index)


def cell_text(page, index: int) -> str:
    """The code cell ``index`` shows in its editor (CodeMirror draws a line a ``.cm-line``)."""
    return "\n".join(cell(page, index).locator(".cm-content .cm-line").all_inner_texts())


def write_cell(page, index: int, code: str) -> None:
    """Replace the code of cell ``index`` with ``code``, as pasted text (typed key by key,
    CodeMirror would indent each new line and close each bracket itself); then check that the
    editor holds exactly ``code``."""
    editor = cell(page, index).locator(".cm-content")
    editor.scroll_into_view_if_needed()
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)
    page.keyboard.press("Escape")  # back to command mode
    assert cell_text(page, index) == code, cell_text(page, index)


def add_cell_at_end(page, code: str) -> int:
    """A new code cell below the last one, holding ``code``; its index."""
    last = page.locator(".jp-NotebookPanel:visible .jp-Cell").count() - 1
    cell(page, last).locator(".jp-InputPrompt").click()  # selects the cell (command mode)
    page.keyboard.press("b")  # insert a cell below
    cell(page, last + 1).wait_for()
    write_cell(page, last + 1, code)
    return last + 1


def run_cell(page, index: int, timeout: int = 60_000) -> str:
    """Run cell ``index`` (Ctrl+Enter) and wait until it has run; the text of its output."""
    return wait_for_cell(page, index, start_cell(page, index), timeout)


def start_cell(page, index: int) -> str:
    """Start running cell ``index`` (Ctrl+Enter); its prompt before, for ``wait_for_cell``."""
    prompt = cell(page, index).locator(".jp-InputPrompt")
    before = prompt.inner_text()
    prompt.click()  # selects the cell (command mode)
    page.keyboard.press("Control+Enter")
    return before


def wait_for_cell(page, index: int, before: str, timeout: int = 60_000) -> str:
    """Wait until cell ``index``, started when its prompt read ``before``, has run; the text
    of its output. It has run when its prompt shows a new execution count: JupyterLab sets it
    from the kernel's reply, after the cell's outputs have arrived. (Waiting for any count
    would return at once for a cell that had run before.)"""
    prompt = cell(page, index).locator(".jp-InputPrompt")
    page.wait_for_function(
        "([el, before]) => /\\[\\d+\\]/.test(el.textContent) && el.textContent !== before",
        arg=[prompt.element_handle(), before], timeout=timeout)
    return output_text(page, index)


def output_text(page, index: int) -> str:
    """What cell ``index`` shows below its code: the text of its output area."""
    return cell(page, index).locator(".jp-OutputArea").inner_text()


def save(page) -> None:
    """Save the open notebook (its toolbar's button) and wait until JupyterLab says it is saved."""
    panel = page.locator(".jp-NotebookPanel").filter(visible=True)
    panel.locator('.jp-NotebookPanel-toolbar [data-command="docmanager:save"]').click()
    page.locator(".lm-TabBar-tab.jp-mod-dirty").wait_for(state="detached", timeout=30_000)


# The feedback page and formgrader's page load MathJax 2 from a CDN (nbconvert's ``mathjax()``:
# ``.../mathjax/2.7.7/latest.js?config=TeX-AMS_CHTML-full,Safe``); the test machine reaches no CDN,
# so a page's requests there are answered from Debian's MathJax 2.7.9 (``libjs-mathjax``, the version
# latest.js resolves to; root installs it: ``make test``).
MATHJAX = Path(os.environ.get("MATHJAX", "/usr/share/javascript/mathjax"))
MATHJAX_CDN = re.compile(r"^https://cdnjs\.cloudflare\.com/ajax/libs/mathjax/[^/]+/([^?#]*)")
# latest.js looks up the newest 2.x on the CDN and loads its MathJax.js with the same query; here
# the newest is the one served
LATEST = ("(function () { var me = document.currentScript, query = me.src.split('?')[1] || '';"
          " var load = document.createElement('script');"
          " load.src = me.src.replace(/latest\\.js.*$/, 'MathJax.js' + (query ? '?' + query : ''));"
          " document.head.appendChild(load); })();")
TYPES = {".js": "application/javascript", ".woff": "font/woff", ".otf": "font/otf", ".eot": "application/vnd.ms-fontobject",
         ".svg": "image/svg+xml", ".css": "text/css", ".json": "application/json"}


def serve_mathjax(page) -> None:
    """Answer ``page``'s requests for MathJax from the local copy."""
    if not (MATHJAX / "MathJax.js").is_file():
        pytest.fail(f"MathJax 2 not found at {MATHJAX} (apt-get install libjs-mathjax, or set MATHJAX)")

    def answer(route):
        path = MATHJAX_CDN.match(route.request.url).group(1)
        if path == "latest.js":
            return route.fulfill(status=200, content_type=TYPES[".js"], body=LATEST)
        file = MATHJAX / path
        if ".." in Path(path).parts or not file.is_file():
            return route.fulfill(status=404, body="")
        return route.fulfill(status=200, content_type=TYPES.get(file.suffix, "application/octet-stream"),
                             body=file.read_bytes())

    page.route(MATHJAX_CDN, answer)


def typeset_done(page, timeout: int = 60_000) -> None:
    """Wait until MathJax has loaded and typeset the page (its startup's typeset, then whatever the
    page's own configuration queued)."""
    page.wait_for_function("() => window.MathJax && MathJax.Hub && MathJax.Hub.Register", timeout=timeout)
    # (a hook that returned the queue would make MathJax's startup wait for it: neither would end)
    page.evaluate("() => { MathJax.Hub.Register.StartupHook('End', "
                  "() => { MathJax.Hub.Queue(() => { window.zzTypesetDone = true; }); }); }")
    page.wait_for_function("() => window.zzTypesetDone === true", timeout=timeout)


# MathJax 2's typeset math (its CommonHTML output and the script element it keeps the TeX in) and 3's
TYPESET = ".MathJax_CHTML, .MathJax, .MathJax_Display, mjx-container, script[type^='math/tex']"


# What JupyterLab itself shows a student, as the student reads it

# every text on screen under a node, and each title (tooltip), aria-label and placeholder, leaving
# out what a notebook holds (its prose, code and outputs) and the files' names
SHOWN_TEXTS = """root => {
  const out = new Set();
  const skip = '.jp-MarkdownOutput, .jp-OutputArea-output, .cm-content, .jp-RenderedHTMLCommon, .jp-DirListing-itemText';
  const walk = el => {
    if (el.nodeType === 3) { const t = el.textContent.trim(); if (t) out.add(t); return; }
    if (el.nodeType !== 1 || el.matches(skip)) return;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') return;
    for (const a of ['title', 'aria-label', 'placeholder']) { const v = el.getAttribute(a); if (v && v.trim()) out.add(v.trim()); }
    for (const c of el.childNodes) walk(c);
  };
  walk(root);
  return [...out];
}"""

# JupyterLab strings it shows in English in every language, Chinese included, whose pack has them:
# the code that shows them hands them no translator (measured with benchmarks/lab_strings.py)
NEVER_TRANSLATED = frozenset({"Kernel Restarting", "Ok", "Open With", "Enable Debugger", "Markdown Cell Content",
                              "main area content", "main area toolbar", "side panel content", "default"})


def shown_texts(page, selector: str) -> set:
    """The texts of every node matching ``selector`` (``SHOWN_TEXTS``)."""
    return {text for node in page.query_selector_all(selector) for text in node.evaluate(SHOWN_TEXTS)}


def lab_surfaces(page, submenus: bool = False) -> set:
    """What a student reads of JupyterLab itself on the open page: the menu bar and each of its
    menus (``submenus``: theirs too), the file browser and the context menu of its first item, the
    notebook's toolbar, the side bars and the status bar."""
    texts = shown_texts(page, "#jp-top-panel, .jp-SideBar, .jp-FileBrowser, .jp-NotebookPanel-toolbar, #jp-bottom-panel")
    menus = page.locator("#jp-MainMenu > ul > li")
    for index in range(menus.count()):
        menus.nth(index).click()
        page.locator(".lm-Menu").first.wait_for()
        texts |= shown_texts(page, ".lm-Menu")
        if submenus:
            texts |= _submenus(page, 0)
        page.keyboard.press("Escape")
        page.keyboard.press("Escape")
        page.locator(".lm-Menu").first.wait_for(state="detached")
    page.locator(".jp-DirListing-item").first.click(button="right")
    page.locator(".lm-Menu").first.wait_for()
    texts |= shown_texts(page, ".lm-Menu")
    page.keyboard.press("Escape")
    page.locator(".lm-Menu").first.wait_for(state="detached")
    return texts


# the open menu at depth i, or null
_MENU = "i => document.querySelectorAll('.lm-Menu')[i] || null"


def _submenus(page, depth: int) -> set:
    """The texts of every submenu of the open menu at ``depth``, and of theirs. A submenu opens
    on hover after Lumino's delay, in a menu node of its own: each is read once that node is there."""
    texts = set()
    items = page.locator(".lm-Menu").nth(depth).locator(".lm-Menu-item[data-type='submenu']")
    for item in range(items.count()):
        before = page.evaluate_handle(_MENU, depth + 1)
        items.nth(item).hover()
        page.wait_for_function(f"([i, before]) => ({_MENU})(i) && ({_MENU})(i) !== before", arg=[depth + 1, before])
        texts |= shown_texts(page, ".lm-Menu") | _submenus(page, depth + 1)
    return texts


def english_on_screen(texts: set, lang: str) -> set:
    """The strings of JupyterLab a student meets (lessons/lab_locale/student_strings.json) that
    ``texts``, read in a JupyterLab in ``lang``, show in English: none of JupyterLab's own
    (``NEVER_TRANSLATED``), and none a translation says the same way (Spanish says kernel)."""
    from english import student_lab_strings
    from test_lab_locale import seen

    from lessons.lab_locale import translated

    data = seen(lang)
    same = {entry["key"].split("\x04")[-1] for entry in student_lab_strings()
            if translated(data.get(entry["domain"], {}).get(entry["key"]))
            and data[entry["domain"]][entry["key"]][0] == entry["key"].split("\x04")[-1]}
    english = {entry["key"].split("\x04")[-1] for entry in student_lab_strings()}
    parts = {part.strip() for text in texts for part in [text, *text.split("|")]}
    return {text for text in parts if text in english} - NEVER_TRANSLATED - same
