"""The plots' fonts, for every language the lessons are written in.

DejaVu Sans, matplotlib's own font, has Latin, Greek and Cyrillic letters but no Chinese
characters. Given a list of families, matplotlib takes each character from the first
family that has it, so the plots use DejaVu Sans and, for what it lacks, a CJK font of
the system: Debian's ``fonts-noto-cjk`` (``make test`` installs it) or conda-forge's
``font-ttf-noto-cjk`` (Binder's environment.yml). Matplotlib's list of system fonts is a
cache made once: when it does not know a CJK font yet and the lesson is in Chinese, the
system's CJK font files are added to it (once per process).
"""
from __future__ import annotations

import functools

CJK = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN", "WenQuanYi Micro Hei",
       "WenQuanYi Zen Hei", "Noto Sans CJK JP")


def _known() -> set:
    from matplotlib import font_manager

    return {font.name for font in font_manager.fontManager.ttflist}


def _add_system_cjk_fonts() -> None:
    from matplotlib import font_manager

    for path in font_manager.findSystemFonts():
        name = path.rsplit("/", 1)[-1].lower()
        if any(mark in name for mark in ("cjk", "wqy", "sourcehan", "notosanssc")):
            try:
                font_manager.fontManager.addfont(path)
            except (OSError, RuntimeError, ValueError):
                continue


@functools.cache
def families() -> tuple:
    """DejaVu Sans, then every CJK family matplotlib can find."""
    from autograder.messages import language

    if language() == "zh" and not set(CJK) & _known():
        _add_system_cjk_fonts()
    return ("DejaVu Sans", *[name for name in CJK if name in _known()])


def use() -> None:
    import matplotlib

    matplotlib.rcParams["font.family"] = list(families())
