"""What the browser tests share: a JupyterLab server on loopback, Debian's Chromium driven by
Playwright, and nbgrader's Validate button."""
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
               "zh": ('.jp-StatusBar-TextItem[title^="更改 "]', "空闲")}


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


def validate(page) -> str:
    """Press nbgrader's Validate button on the open notebook; the report it shows."""
    page.locator(".jp-NotebookPanel-toolbar").get_by_text("Validate", exact=True).click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(timeout=120_000)
    page.wait_for_function(
        "() => /Success|failed|error/i.test(document.querySelector('.jp-Dialog').innerText)",
        timeout=120_000)
    text = dialog.inner_text()
    page.keyboard.press("Escape")
    return text
