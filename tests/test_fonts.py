"""The plots' fonts: lessons.fonts asks matplotlib's font manager for a CJK family by its name
(whatever its file is called, from whichever system), and when there is none it says once, in
the lesson's language, what to install.

Real matplotlib font managers and font caches, built over a folder that holds one real CJK
font file of this machine (under a name no file-name rule would recognise), or none."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import matplotlib
import pytest
from helpers import ROOT
from matplotlib import font_manager

from autograder.messages import LANGUAGES
from lessons import fonts
from lessons.text import raw

CHINESE = "前向传播中为反向传播保存的数据"  # a plot title of lesson 4, in Chinese


@pytest.fixture(scope="module")
def cjk_font() -> Path:
    """A font file of this machine with a CJK family (found by family, as fonts.py does)."""
    manager = font_manager.FontManager()
    for name in fonts.CJK:
        for font in manager.ttflist:
            if font.name == name:
                return Path(font.fname)
    pytest.skip("no CJK font on this machine: apt-get install fonts-noto-cjk")


@pytest.fixture(autouse=True)
def plots_drawn(monkeypatch):
    for name in ("NBGRADER_EXECUTION", "LESSONS_NO_PLOTS"):
        monkeypatch.delenv(name, raising=False)


def manager_over(folder: Path) -> font_manager.FontManager:
    """A matplotlib font manager that knows matplotlib's own fonts and those in ``folder``, no others."""
    manager = font_manager.FontManager()
    own = Path(matplotlib.get_data_path()) / "fonts"
    manager.ttflist = [f for f in manager.ttflist if Path(f.fname).is_relative_to(own)]
    manager.afmlist = [f for f in manager.afmlist if Path(f.fname).is_relative_to(own)]
    for path in font_manager.findSystemFonts([str(folder)]):
        manager.addfont(path)
    return manager


def one_font_folder(tmp_path: Path, cjk_font: Path) -> Path:
    folder = tmp_path / "fonts"
    folder.mkdir()
    shutil.copy(cjk_font, folder / f"font1{cjk_font.suffix}")  # a name that says nothing
    return folder


def said(caught) -> list:
    return [str(w.message) for w in caught if issubclass(w.category, fonts.MissingFontWarning)]


def test_a_cjk_family_is_found_by_its_name_whatever_its_file(tmp_path, cjk_font):
    folder = one_font_folder(tmp_path, cjk_font)
    manager = manager_over(folder)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = fonts.families("zh", manager)
    assert said(caught) == []
    assert found[0] == "DejaVu Sans" and len(found) > 1 and set(found[1:]) <= set(fonts.CJK)
    assert found[1:] == tuple(name for name in fonts.CJK if name in found)  # by preference
    # the family found is the one file in the folder, and it has the lesson's characters
    path = manager.findfont(font_manager.FontProperties(family=found[1]), fallback_to_default=False)
    assert Path(path).parent == folder
    font = font_manager.get_font(path)
    assert all(font.get_char_index(ord(c)) for c in CHINESE)


def test_without_a_cjk_font_the_chinese_lesson_says_once_what_to_install(tmp_path):
    manager = manager_over(tmp_path)  # an empty folder: matplotlib's own fonts only
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert fonts.families("en", manager) == ("DejaVu Sans",)  # English needs no CJK font: nothing said
        assert said(caught) == []
        assert fonts.families("zh", manager) == ("DejaVu Sans",)
        assert fonts.families("zh", manager) == ("DejaVu Sans",)  # asked again: said only once
    assert said(caught) == [raw("fonts.missing_cjk", "zh")]
    assert "fonts-noto-cjk" in said(caught)[0] and "中文字体" in said(caught)[0]


def test_what_to_install_is_said_in_every_language():
    for lang in LANGUAGES:
        message = raw("fonts.missing_cjk", lang)
        assert "`sudo apt-get install fonts-noto-cjk`" in message
        assert "`conda install -c conda-forge font-ttf-noto-cjk`" in message
        assert lang == "en" or message != raw("fonts.missing_cjk", "en")


DRAW = """
import json, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    from lessons import fonts
    fonts.use()
    from lessons import fonts as again
    again.use()  # plots.py and graph_view.py both call it
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure()
    FigureCanvasAgg(fig)
    fig.subplots().set_title(%r)
    fig.canvas.draw()
print(json.dumps({"families": fonts.families(), "said": [str(w.message) for w in caught]}))
""" % CHINESE


def draw_with_font_cache(tmp_path: Path, manager, **env) -> dict:
    """Draw a Chinese title in a new process whose matplotlib reads its fonts from a cache
    holding ``manager``'s fonts."""
    config = tmp_path / "matplotlib"
    config.mkdir()
    font_manager.json_dump(manager, config / f"fontlist-v{font_manager.FontManager.__version__}.json")
    environ = {k: v for k, v in os.environ.items() if k not in ("NBGRADER_EXECUTION", "LESSONS_NO_PLOTS")}
    environ.update(MPLCONFIGDIR=str(config), AUTOGRAD_LESSONS_LANG="zh", **env)
    done = subprocess.run([sys.executable, "-c", DRAW], cwd=ROOT, env=environ, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.slow  # a new Python process each: kept out of make quick
def test_a_font_cache_with_one_cjk_font_draws_chinese_without_a_missing_glyph(tmp_path, cjk_font):
    manager = manager_over(one_font_folder(tmp_path, cjk_font))
    expected = fonts.families("zh", manager)
    drawn = draw_with_font_cache(tmp_path, manager)
    assert tuple(drawn["families"]) == expected and len(expected) > 1
    assert drawn["said"] == []  # no "Glyph … missing from font(s)", no missing font


@pytest.mark.slow
def test_a_font_cache_older_than_the_cjk_font_is_read_again(tmp_path, cjk_font):
    """The cache knows no CJK font, the system has one (installed after matplotlib made its
    cache): the Chinese lesson finds it without a word."""
    drawn = draw_with_font_cache(tmp_path, manager_over(tmp_path / "nothing"))
    assert len(drawn["families"]) > 1 and drawn["said"] == []


@pytest.mark.slow
def test_with_no_cjk_font_anywhere_the_chinese_lesson_says_so_once(tmp_path):
    """Neither the cache nor the system (MPL_IGNORE_SYSTEM_FONTS) has a CJK font: the student is
    told once, in Chinese, what to install, though both plot modules ask for the fonts."""
    drawn = draw_with_font_cache(tmp_path, manager_over(tmp_path / "nothing"), MPL_IGNORE_SYSTEM_FONTS="1")
    if len(drawn["families"]) > 1:
        pytest.skip("this matplotlib reads the system's fonts even with MPL_IGNORE_SYSTEM_FONTS")
    assert drawn["families"] == ["DejaVu Sans"]
    told = [m for m in drawn["said"] if not m.startswith("Glyph")]
    assert told == [raw("fonts.missing_cjk", "zh")]
    assert any(m.startswith("Glyph") for m in drawn["said"])  # the boxes it warned about
