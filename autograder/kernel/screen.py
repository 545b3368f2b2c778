"""Feedback laid out for the student's screen: lines broken at word boundaries.

JupyterLab shows a text output (a check's message, a hint) in a ``pre`` with ``word-break:
break-all``: a long line wraps at the output's edge in the middle of a word ("optimizer.ste" /
"p()", "batc" / "h 4"). Lines no wider than a notebook's output area are left alone, so
messages are broken here, between words, at ``WIDTH`` columns, a width that fits the output
area of a notebook in a 1280-pixel window with the file browser open. A Chinese character is
two columns wide and a line of them may break between any two.
"""
from __future__ import annotations

import unicodedata

WIDTH = 88


def columns(text: str) -> int:
    """How many columns ``text`` takes in a monospace font (wide characters count two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pieces(line: str) -> list:
    """The line's unbreakable pieces: words with the spaces after them, and every wide
    character on its own (CJK text has no spaces and breaks between characters)."""
    pieces, current = [], ""
    for ch in line:
        if unicodedata.east_asian_width(ch) in "WF":
            if current:
                pieces.append(current)
            pieces.append(ch)
            current = ""
        elif ch == " ":
            current += ch
            pieces.append(current)
            current = ""
        else:
            current += ch
    if current:
        pieces.append(current)
    return pieces


def _wrap_line(line: str, width: int) -> list:
    indent = " " * (len(line) - len(line.lstrip(" ")))
    lines, current = [], ""
    for piece in _pieces(line):
        if current.strip() and columns(current + piece.rstrip()) > width:
            lines.append(current.rstrip())
            current = indent + piece.lstrip(" ") if lines else piece
        else:
            current += piece
    lines.append(current.rstrip())
    return lines


def wrap(text: str, width: int = WIDTH) -> str:
    """``text`` with every line longer than ``width`` columns broken between words."""
    return "\n".join(out for line in str(text).split("\n") for out in _wrap_line(line, width))
