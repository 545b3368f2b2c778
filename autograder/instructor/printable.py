"""A student's text as it may reach the instructor's terminal or a log file: no control characters.

Much of what ``autograder grade`` prints and logs is a student's to choose: an exception's class
name (``type("\\x1b[2J", (Exception,), {})``), an error's text, a grade id, the name of a
submission folder (their id, where students share one Unix user). Printed raw, an escape
sequence moves the cursor, clears the lines above, colours or hides what follows, sets the
window's title or (OSC 52, on some terminals) writes to the clipboard; a carriage return or a
backspace writes over what was printed; a right-to-left override (U+202E) shows a line
backwards; a lone surrogate (a folder name that is not UTF-8) makes ``print`` raise.

``printable`` removes every escape sequence whole (CSI, OSC/DCS/SOS/PM/APC strings to their
terminator, two-character escapes), then every other control character: C0 and DEL (a text that
keeps its lines keeps new lines and tabs; on one line they become spaces), C1, Unicode's
bidirectional controls and line separators; a lone surrogate becomes U+FFFD. Everything a
terminal or a log shows of a student goes through it (``autograder grade``'s summary, the
mistakes it names, the logs the grader keeps, the passes' warnings).
"""
from __future__ import annotations

import re

# ESC [ or CSI, parameters, intermediates, a final byte; ESC ] (OSC), P (DCS), X (SOS), ^ (PM), _ (APC)
# or their C1 forms, a string up to BEL, ST (ESC \ or U+009C) or the line's end; ESC, intermediates, a final byte
_SEQUENCES = re.compile(
    "(?:\x1b\\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    "|(?:\x1b[\\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\\\|\x9c)?"
    "|\x1b[\x20-\x2f]*[\x30-\x7e]?")
# C0 but new line and tab, DEL, C1, bidirectional marks, embeddings, overrides and isolates,
# line and paragraph separators
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
_CONTROL = re.compile(f"[{_CONTROLS}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_BREAKS = re.compile("[\n\t\r\u2028\u2029]")


def printable(text, lines: bool = False) -> str:
    """``text`` (anything: it is made a string) without escape sequences and control characters;
    with ``lines``, new lines and tabs stay (a log), else they become spaces (one line of a
    terminal)."""
    text = _SEQUENCES.sub("", text if isinstance(text, str) else str(text))
    if not lines:
        text = _LINE_BREAKS.sub(" ", text)
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", text))
