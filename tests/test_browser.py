"""The student's view: real JupyterLab in real Chromium, driven with the keyboard and mouse.

For every lesson, in English and in Chinese (its width, its fonts, its messages): open the
notebook (in English the solved one, in Chinese the untouched release, as a student first
opens it), wait for its kernel, Run All, check that nothing errs (in the untouched release:
only the cells that may fail before the student answers), that every widget rendered, that
the lesson's main widget redraws its plot when moved from the keyboard (and, in lesson 3,
while its slider is dragged with the mouse, before the button is released), that a Quick
Check answer shows its explanation; then nbgrader's Validate button: on the solved English
notebook (success), and on the untouched Chinese release (the grader's messages, in the
notebook's language). A screenshot of each notebook is saved under test-artifacts/.

The server is the students' (``lab_config/student``) started in Chinese, as ``make lab LANG=zh``
starts it (``lessons/lab_language.py``): the Chinese lessons run in JupyterLab's Chinese
interface; for the English ones the user's own setting chooses English, as Settings › Language
would. A link of Binder's (``/lessons/es``) turns the interface Spanish.
"""
from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
import browser_helpers
from browser_helpers import browser, jupyter_lab, next_frames, validate  # noqa: F401  (browser: a fixture)
from english import english_left
from helpers import ROOT, fill, isolated_env, read, solutions

from lessons import lab as course_lab
from lessons.lab_language import server_options, validate_words

pytestmark = [pytest.mark.slow, pytest.mark.browser]

ARTIFACTS = ROOT / "test-artifacts"
# what each lesson shows: plots, sliders, Quick Check questions, and how to move its main widget
LESSONS = {
    "01_requires_grad": {"images": 1, "sliders": 0, "questions": 3, "move": "checkbox"},
    "02_backward": {"images": 3, "sliders": 3, "questions": 3, "move": "slider"},
    "03_zeroing_grad": {"images": 3, "sliders": 1, "questions": 5, "move": "slider", "drag": True},
    "04_no_grad": {"images": 1, "sliders": 1, "questions": 3, "move": "slider"},
}
# language → folder under release/ (the language is in each notebook's metadata)
LANGUAGES = {"en": "", "zh": "zh/"}
CJK = re.compile(r"[\u4e00-\u9fff]")
SETTINGS = {
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on loopback over a throw-away copy of the course."""
    course = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copytree(ROOT / "release", course / "release")
    for name in LESSONS:  # (the English lessons solved; the Chinese ones as released)
        solved = fill(read(ROOT / "release" / name / f"{name}.ipynb"), solutions(read(ROOT / "source" / name / f"{name}.ipynb")))
        nbformat.write(solved, str(course / "release" / name / "solved.ipynb"))
    env = isolated_env(tmp_path_factory.mktemp("home"))
    env["JUPYTER_CONFIG_PATH"] = course_lab.config_path("student", env.get("JUPYTER_CONFIG_PATH"))
    USER_SETTINGS.append(Path(env["JUPYTER_CONFIG_DIR"]) / "lab" / "user-settings")
    for plugin, values in SETTINGS.items():
        path = Path(env["JUPYTER_CONFIG_DIR"]) / "lab" / "user-settings" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    with jupyter_lab([sys.executable, "-m", "jupyter", "lab", f"--ServerApp.root_dir={course}",
                      *server_options("zh")], env, course, course / "server.log") as url:
        yield url


USER_SETTINGS: list = []  # the lab's user settings directory
# JupyterLab's words the tests click or wait for, in its English and Chinese interface
UI = {
    "en": {"File": "File", "Run": "Run", "Run All Cells": "Run All Cells"},
    "zh": {"File": "文件", "Run": "运行", "Run All Cells": "运行所有单元格"},
}


def interface_language(lang: str) -> None:
    """What the next page loads in: Chinese, the server's default (no setting of the user's),
    or English, the user's setting (saved as Settings › Language saves it)."""
    from lessons.lab_language import save_locale
    setting = USER_SETTINGS[-1] / "@jupyterlab" / "translation-extension" / "plugin.jupyterlab-settings"
    setting.unlink(missing_ok=True)
    if lang != "zh":
        save_locale(USER_SETTINGS[-1], "en")


def open_notebook(browser, lab, path):
    """A page with the notebook open, in the language of its folder, its kernel idle."""
    lang = "zh" if "/zh/" in path else "en"
    interface_language(lang)
    return browser_helpers.open_notebook(browser, lab, path, lang)[0]


COUNTED = """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                  .filter(p => /\\[\\d+\\]/.test(p.textContent)).length"""


def run_all(page, code_cells: int, lang: str = "en") -> None:
    page.get_by_role("menuitem", name=UI[lang]["Run"], exact=True).click()
    page.get_by_role("menuitem", name=UI[lang]["Run All Cells"], exact=True).click()
    # every code cell shows an execution count (the notebook is not windowed: see SETTINGS),
    # or a dialog stopped Run All; then the kernel is idle again
    page.wait_for_function(f"n => document.querySelector('.jp-Dialog') || ({COUNTED})() >= n",
                           arg=code_cells, timeout=120_000)
    dialog = page.locator(".jp-Dialog")
    assert dialog.count() == 0, f"a dialog stopped Run All: {dialog.inner_text()}"
    page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=60_000)


def image_of(box) -> str:
    return box.locator(".widget-image").first.get_attribute("src")


def main_widget(page, how: str):
    """The lesson's main widget (its plot and the control that moves it) and that control."""
    control = ".widget-slider" if how == "slider" else ".widget-checkbox"
    box = page.locator(".widget-vbox").filter(has=page.locator(control)).filter(
        has=page.locator(".widget-image")).last
    handle = box.locator(".noUi-handle" if how == "slider" else ".widget-checkbox input").first
    return box, handle


def wait_for_new_image(page, box, before: str, timeout: int = 30_000) -> None:
    page.wait_for_function("([el, src]) => el.getAttribute('src') !== src",
                           arg=[box.locator(".widget-image").first.element_handle(), before],
                           timeout=timeout)


def move_main_widget(page, how: str) -> None:
    """Change the lesson's main widget from the keyboard; its plot must redraw."""
    box, handle = main_widget(page, how)
    before = image_of(box)
    caption = box.locator(".lesson-caption").inner_text()
    handle.focus()
    page.keyboard.press("ArrowRight" if how == "slider" else "Space")
    wait_for_new_image(page, box, before)
    # the caption is another widget, with its own message from the kernel: it may land a
    # moment after the image (asserting it at once failed in one run of this suite under load)
    from playwright.sync_api import expect
    expect(box.locator(".lesson-caption"), "the caption did not follow the plot").not_to_have_text(
        caption, timeout=10_000)


def drag_slider(page, lang: str = "en") -> None:
    """Drag the main slider's handle with the mouse, a step at a time: the plot must change
    while the button is still down (the slider sends its values while dragged, and each
    redraw keeps up), and the caption must end on the value where the handle stopped."""
    box, handle = main_widget(page, "slider")
    handle.scroll_into_view_if_needed()
    readout = box.locator(".widget-readout").first
    start_value, before = readout.inner_text(), image_of(box)
    track, knob = box.locator(".noUi-target").first.bounding_box(), handle.bounding_box()
    x, y = knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for step in range(1, 5):  # 4 moves of 1/16 of the track: past two values of a 1–10 slider
        page.mouse.move(x + step * track["width"] / 16, y, steps=4)
    wait_for_new_image(page, box, before, timeout=10_000)  # the button is still down here
    assert readout.inner_text() != start_value
    page.mouse.up()
    end_value = readout.inner_text()
    expected = f"After {end_value} backward() call" if lang == "en" else f"{end_value}"  # call, calls
    page.wait_for_function("([el, text]) => el.innerText.includes(text)",
                           arg=[box.locator(".lesson-caption").element_handle(), expected], timeout=10_000)


def save_screenshot(page, name: str) -> None:
    """The whole notebook in one picture: grow the window to the notebook's height first."""
    height = page.evaluate("document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": min(height + 150, 16000)})
    page.evaluate("document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer').scrollTop = 0")
    next_frames(page)  # laid out at the new size
    ARTIFACTS.mkdir(exist_ok=True)
    # JPEG: a lesson is ~1400 × 12000 pixels, whose PNG (2.5 MB) took seconds to encode on each run
    page.screenshot(path=str(ARTIFACTS / f"{name}.jpg"), type="jpeg", quality=80)
    page.set_viewport_size({"width": 1400, "height": 1000})


def not_written_yet(lang: str) -> str:
    """The words the grader uses, in ``lang``, for an answer that still raises NotImplementedError."""
    import string

    from autograder import messages
    template = messages._GRADER.raw("loop.not_implemented", lang)
    return max((literal for literal, *_ in string.Formatter().parse(template)), key=len).strip()


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", LESSONS)
def test_lesson_in_jupyterlab(lab, browser, name, lang):
    spec = LESSONS[name]
    folder = f"release/{LANGUAGES[lang]}{name}"
    released = read(ROOT / folder / f"{name}.ipynb")
    code_cells = sum(c.cell_type == "code" for c in released.cells)
    page = open_notebook(browser, lab, f"{folder}/{'solved' if lang == 'en' else name}.ipynb")
    # JupyterLab's own interface is in the lesson's language too (its language pack)
    assert page.get_by_role("menuitem", name=UI[lang]["File"], exact=True).count() == 1
    run_all(page, code_cells, lang)

    if lang == "en":
        errors = page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
        assert errors.count() == 0, errors.first.inner_text()
    else:
        assert browser_helpers.unexpected_errors(page, released) == []
    assert page.locator(".widget-image").count() == spec["images"]
    assert page.locator(".widget-slider").count() == spec["sliders"]
    assert page.locator(".quiz-check").count() == spec["questions"]
    widths = page.eval_on_selector_all(".widget-image", "imgs => imgs.map(i => i.naturalWidth)")
    assert all(w > 100 for w in widths), widths
    captions = page.locator(".lesson-caption")
    shortest = 40 if lang == "en" else 15  # a Chinese caption says as much in a third of the characters
    assert captions.count() >= spec["images"] and all(len(t) > shortest for t in captions.all_inner_texts())
    if lang == "zh":  # the plots' captions and the lesson's own text are in Chinese
        assert all(CJK.search(t) for t in captions.all_inner_texts())
        assert CJK.search(page.locator(".jp-MarkdownOutput").first.inner_text())

    move_main_widget(page, spec["move"])
    if spec.get("drag"):
        drag_slider(page, lang)

    question = page.locator(".quiz-question").first
    question.locator("input[type=radio]").nth(1).check()
    question.locator(".quiz-check").click()
    feedback = question.locator(".quiz-feedback")
    feedback.wait_for(timeout=10_000)
    assert len(feedback.inner_text()) > (10 if lang == "zh" else 20)  # a sentence: the verdict and why

    save_screenshot(page, name if lang == "en" else f"{name}-{lang}")
    # Validate once a notebook (8 s of CPU a press): the solved English notebook passes; the
    # untouched Chinese one fails in Chinese words. (The code cells are the same in every
    # language, test_translations; English is the grader's default language, which the
    # solution catalogues check word for word. The solved notebook runs in every language in
    # test_student_walk, and the untouched one here: one page a test, not two.)
    if lang == "en":
        assert "Success" in validate(page)
        page.close()
        return

    # the course's Validate button (labextension/), its report in the notebook's language
    words = validate_words(lang)
    assert page.locator(browser_helpers.VALIDATE_BUTTON).filter(visible=True).inner_text().strip() == words["button"]
    report = validate(page)
    assert report.startswith(words["title"]) and words["failed"] in report, report[:2000]
    # (a message is broken into lines of 88 columns: compared without its spaces, as test_hub does)
    assert re.sub(r"\s", "", not_written_yet(lang)) in re.sub(r"\s", "", report), report[:2000]
    code = {line.strip() for cell in read(ROOT / folder / f"{name}.ipynb").cells if cell.cell_type == "code"
            for line in cell.source.splitlines()}
    said = " ".join(line for line in report.splitlines() if line.strip() not in code)  # (a message's lines joined)
    assert english_left([("Validate", said)], lang) == [], said[:2000]
    page.close()


def test_a_link_opens_jupyterlab_in_its_language(lab, browser):
    """Binder's link for Spanish (``urlpath=lessons/es/...``): JupyterLab's interface in Spanish,
    on the Spanish lesson; every menu, the file browser and its menu, the notebook's toolbar and the
    status bar a student reads are in Spanish (the Spanish pack leaves half of them English: the
    course's strings, lessons/lab_locale, fill them), but for the strings JupyterLab shows in English
    in every language."""
    interface_language("zh")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{lab}/lessons/es/01_requires_grad")
    assert page.url.endswith("/lab/tree/release/es/01_requires_grad"), page.url
    page.get_by_role("menuitem", name="Archivo", exact=True).wait_for(timeout=60_000)
    assert page.get_by_role("menuitem", name="File", exact=True).count() == 0
    page.locator(".jp-DirListing-item", has_text="01_requires_grad.ipynb").dblclick()
    browser_helpers.wait_for_idle_kernel(page, "es")
    shown = browser_helpers.lab_surfaces(page)
    assert browser_helpers.english_on_screen(shown, "es") == set()
    for spanish in ("Archivo", "Editar", "Ejecutar", "Kernel", "Pestañas", "Ejecutar todas las celdas",
                    "Borrar las salidas de todas las celdas", "Reiniciar el kernel…", "Nombre", "Modificado",
                    "Cortar la celda", "Validar"):
        assert spanish in shown, spanish
    assert any(text.endswith("| Inactivo") for text in shown), shown
    page.close()
