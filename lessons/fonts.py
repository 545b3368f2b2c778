"""The plots' fonts, for every language the lessons are written in.

DejaVu Sans, matplotlib's own font, has Latin, Greek and Cyrillic letters but no Chinese
characters. Given a list of families, matplotlib takes each character from the first
family that has it, so the plots use DejaVu Sans and, for what it lacks, a CJK font of
the system, asked of matplotlib's font manager by family name (never by file name, which
differs from one system to the next): Noto Sans CJK or Source Han Sans on Linux
(Debian's ``fonts-noto-cjk``, conda-forge's ``font-ttf-noto-cjk`` on Binder), PingFang,
Hiragino or Heiti on macOS, Microsoft YaHei or SimHei on Windows, WenQuanYi, …

Matplotlib's list of fonts is a cache made once: when it knows no CJK family and the
lesson is in Chinese, the system's fonts are read again (once per process), in case one
was installed since. If there is still none, the student is told once, in the notebook's
language, what to install.
"""
from __future__ import annotations

import functools
import os
import warnings

# Families with the CJK ideographs simplified Chinese needs, by preference: simplified
# Chinese designs first, then the same fonts' Japanese, traditional Chinese and Korean faces
# (which also cover the characters of the lessons), then serif designs.
CJK = (
    # Linux, conda-forge, Binder
    "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN", "Source Han Sans",
    # macOS
    "PingFang SC", "Hiragino Sans GB", "Heiti SC", "STHeiti",
    # Windows
    "Microsoft YaHei", "Microsoft YaHei UI", "DengXian", "SimHei",
    # other Linux fonts
    "WenQuanYi Zen Hei", "WenQuanYi Micro Hei", "Droid Sans Fallback", "AR PL UMing CN", "AR PL UKai CN",
    # the same fonts' other faces, and serif designs
    "Noto Sans CJK JP", "Noto Sans CJK TC", "Noto Sans CJK HK", "Noto Sans CJK KR",
    "Source Han Sans JP", "Source Han Sans TW", "Source Han Sans K", "Heiti TC", "PingFang TC",
    "Hiragino Sans", "Noto Serif CJK SC", "Source Han Serif SC", "Songti SC", "STSong", "SimSun", "NSimSun",
    "Noto Serif CJK JP", "Arial Unicode MS",
)

NEEDS_CJK = ("zh",)  # the languages whose text is in a CJK script


class MissingFontWarning(UserWarning):
    """No font for the lesson's script: its text in the plots would be empty boxes."""


def cjk_families(manager) -> list:
    """The CJK families of ``CJK`` that the font manager ``manager`` knows, by preference."""
    known = {font.name for font in manager.ttflist}
    return [name for name in CJK if name in known]


def _add_system_cjk_fonts(manager) -> None:
    """Read the system's fonts again and give ``manager`` the files of every CJK family
    among them (matplotlib's cache may be older than a font installed since)."""
    from matplotlib import font_manager

    try:
        fresh = font_manager.FontManager()
    except Exception:  # a broken font file or folder must not break the lesson
        return
    known = {font.fname for font in manager.ttflist}
    for font in fresh.ttflist:
        if font.name in CJK and font.fname not in known:
            known.add(font.fname)
            try:
                manager.addfont(font.fname)
            except (OSError, RuntimeError, ValueError):
                continue


def _plots_drawn() -> bool:
    """False while a grader runs the notebook (see lessons.widgets.grading): no plot is drawn."""
    return not (os.environ.get("NBGRADER_EXECUTION") or os.environ.get("LESSONS_NO_PLOTS"))


@functools.cache
def _families(lang: str, manager) -> tuple:
    from matplotlib import font_manager

    found = cjk_families(manager or font_manager.fontManager)
    if not found and lang in NEEDS_CJK and manager is None:
        _add_system_cjk_fonts(font_manager.fontManager)
        found = cjk_families(font_manager.fontManager)
    if not found and lang in NEEDS_CJK and _plots_drawn():
        from .text import raw

        warnings.warn(raw("fonts.missing_cjk", lang), MissingFontWarning, stacklevel=2)
    return ("DejaVu Sans", *found)


def families(lang: str | None = None, manager=None) -> tuple:
    """DejaVu Sans, then every CJK family the font manager knows.

    ``lang``: the lesson's language (default: the notebook's). ``manager``: a matplotlib
    ``FontManager`` (default: matplotlib's own, read again from the system when it knows no
    CJK family and the lesson needs one). When a lesson in a CJK script finds none, a
    ``MissingFontWarning`` says once, in its language, what to install."""
    from autograder.messages import known, language

    return _families(known(lang) if lang else language(), manager)


families.cache_clear = _families.cache_clear


def use() -> None:
    import matplotlib

    matplotlib.rcParams["font.family"] = list(families())
