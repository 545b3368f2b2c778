"""The student's view: real JupyterLab in real Chromium, driven with the keyboard and mouse.

For every lesson: open the solved notebook, Run All, check that nothing errs, that every
widget rendered, that the lesson's main widget redraws its plot when moved from the
keyboard, that a Quick Check answer shows its explanation; then nbgrader's Validate
button on the solved notebook (success) and on the untouched release (the grader's
messages). A screenshot of each notebook is saved under test-artifacts/.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from helpers import ROOT, fill, isolated_env, read, solutions

pytestmark = [pytest.mark.slow, pytest.mark.browser]

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
# what each lesson shows: plots, sliders, Quick Check questions, and how to move its main widget
LESSONS = {
    "01_requires_grad": {"images": 1, "sliders": 0, "questions": 3, "move": "checkbox"},
    "02_backward": {"images": 1, "sliders": 1, "questions": 3, "move": "slider"},
    "03_zeroing_grad": {"images": 3, "sliders": 1, "questions": 4, "move": "slider"},
    "04_no_grad": {"images": 1, "sliders": 1, "questions": 3, "move": "slider"},
}
SETTINGS = {
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on loopback over a throw-away copy of the course."""
    course = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copytree(ROOT / "release", course / "release")
    for name in LESSONS:
        solved = fill(read(ROOT / "release" / name / f"{name}.ipynb"),
                      solutions(read(ROOT / "source" / name / f"{name}.ipynb")))
        nbformat.write(solved, str(course / "release" / name / "solved.ipynb"))
    env = isolated_env(tmp_path_factory.mktemp("home"))
    for plugin, values in SETTINGS.items():
        path = Path(env["JUPYTER_CONFIG_DIR"]) / "lab" / "user-settings" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port = _free_port()
    log = open(course / "server.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--port={port}", "--IdentityProvider.token=", "--ServerApp.password=", "--allow-root",
         f"--ServerApp.root_dir={course}"], cwd=course, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status", timeout=2)
            break
        except OSError:
            if time.time() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail("JupyterLab did not start:\n" + (course / "server.log").read_text())
            time.sleep(0.5)
    yield url
    server.terminate()
    server.wait(timeout=30)


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


def open_notebook(browser, lab, path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{lab}/lab/tree/{path}?reset")
    page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=90_000)
    return page


def run_all(page, code_cells: int) -> None:
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    # every code cell shows an execution count, and the kernel is idle again
    page.wait_for_function(
        """n => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                 .filter(p => /\\[\\d+\\]/.test(p.textContent)).length >= n""",
        arg=code_cells, timeout=120_000)
    page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=60_000)


def image_of(box) -> str:
    return box.locator(".widget-image").first.get_attribute("src")


def move_main_widget(page, how: str) -> None:
    """Change the lesson's main widget from the keyboard; its plot must redraw."""
    if how == "slider":
        box = page.locator(".widget-vbox").filter(has=page.locator(".widget-slider")).filter(
            has=page.locator(".widget-image")).last
        handle = box.locator(".noUi-handle").first
    else:
        box = page.locator(".widget-vbox").filter(has=page.locator(".widget-checkbox")).filter(
            has=page.locator(".widget-image")).last
        handle = box.locator(".widget-checkbox input").first
    before = image_of(box)
    caption = box.locator(".lesson-caption").inner_text()
    handle.focus()
    page.keyboard.press("ArrowRight" if how == "slider" else "Space")
    page.wait_for_function("([el, src]) => el.getAttribute('src') !== src",
                           arg=[box.locator(".widget-image").first.element_handle(), before],
                           timeout=30_000)
    assert box.locator(".lesson-caption").inner_text() != caption, "the caption did not follow the plot"


def save_screenshot(page, name: str) -> None:
    """The whole notebook in one picture: grow the window to the notebook's height first."""
    height = page.evaluate("document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": min(height + 150, 16000)})
    page.evaluate("document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer').scrollTop = 0")
    page.wait_for_timeout(500)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})


def validate(page) -> str:
    page.locator(".jp-NotebookPanel-toolbar").get_by_text("Validate", exact=True).click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(timeout=120_000)
    page.wait_for_function(
        "() => /Success|failed|error/i.test(document.querySelector('.jp-Dialog').innerText)",
        timeout=120_000)
    text = dialog.inner_text()
    page.keyboard.press("Escape")
    return text


@pytest.mark.parametrize("name", LESSONS)
def test_lesson_in_jupyterlab(lab, browser, name):
    spec = LESSONS[name]
    code_cells = sum(c.cell_type == "code" for c in read(ROOT / "release" / name / f"{name}.ipynb").cells)
    page = open_notebook(browser, lab, f"release/{name}/solved.ipynb")
    run_all(page, code_cells)

    errors = page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
    assert errors.count() == 0, errors.first.inner_text()
    assert page.locator(".widget-image").count() == spec["images"]
    assert page.locator(".widget-slider").count() == spec["sliders"]
    assert page.locator(".quiz-check").count() == spec["questions"]
    widths = page.eval_on_selector_all(".widget-image", "imgs => imgs.map(i => i.naturalWidth)")
    assert all(w > 100 for w in widths), widths
    captions = page.locator(".lesson-caption")
    assert captions.count() >= spec["images"] and all(len(t) > 40 for t in captions.all_inner_texts())

    move_main_widget(page, spec["move"])

    question = page.locator(".quiz-question").first
    question.locator("input[type=radio]").nth(1).check()
    question.locator(".quiz-check").click()
    feedback = question.locator(".quiz-feedback")
    feedback.wait_for(timeout=10_000)
    assert len(feedback.inner_text()) > 20

    save_screenshot(page, name)
    assert "Success" in validate(page)
    page.close()

    page = open_notebook(browser, lab, f"release/{name}/{name}.ipynb")
    report = validate(page)
    assert "failed" in report and "is not written yet" in report, report[:2000]
    page.close()
