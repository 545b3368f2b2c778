"""A student's text on the instructor's terminal and in the grader's logs (``printable``): no
escape sequence, no control character, whatever the student wrote; what `autograder grade`
prints of a class full of them; what a student's log keeps."""
from __future__ import annotations

import re

import pytest

from autograder.instructor import failures
from autograder.instructor.grading import command, run, worker
from autograder.instructor.printable import printable
from autograder.instructor.reports.summary import mistake_name

# what a terminal takes as a command: C0 but new line and tab, DEL, C1, bidirectional controls, surrogates
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
ATTACKS = {
    "clear and home": ("\x1b[2J\x1b[HZz", "Zz"),
    "window title (OSC, BEL)": ("\x1b]0;pwned\x07Zz", "Zz"),
    "clipboard (OSC 52, ST)": ("\x1b]52;c;cHduZWQ=\x1b\\Zz", "Zz"),
    "unterminated OSC eats its line only": ("a\x1b]0;pwned\nZz", "a Zz"),
    "colour, C1 CSI": ("\x9b31mZz\x9b0m", "Zz"),
    "cursor up, erase line": ("\x1b[1A\x1b[2KZz", "Zz"),
    "a two-character escape": ("\x1bcZz\x1b7", "Zz"),
    "DCS string": ("\x1bPq#0;2;0;0;0\x1b\\Zz", "Zz"),
    "carriage return": ("failed\r  ok", "failed   ok"),
    "backspace": ("failed\x08\x08\x08\x08\x08\x08ok", "failedok"),
    "right-to-left override": ("Zz\u202etxt.exe", "Zztxt.exe"),
    "isolates and marks": ("\u2066Zz\u2069\u200f\u061c", "Zz"),
    "line separator": ("a\u2028b\u2029c", "a b c"),
    "NUL and DEL": ("Z\x00z\x7f", "Zz"),
    "a folder name that is not UTF-8": ("caf\udce9", "caf\ufffd"),
    "plain text": ("élève <b>Zz</b> 中文 · 1 + 2", "élève <b>Zz</b> 中文 · 1 + 2"),
    "not a string": (12.5, "12.5"),
}


@pytest.mark.parametrize("name", ATTACKS)
def test_printable(name):
    text, expected = ATTACKS[name]
    assert printable(text) == expected
    assert not CONTROLS.search(printable(text, lines=True))


def test_a_log_keeps_its_lines():
    assert printable("line 1\n\tline 2\r\nline 3\x1b[31m", lines=True) == "line 1\n\tline 2\nline 3"
    assert printable("line 1\nline 2") == "line 1 line 2"


HOSTILE = "\x1b[2J\x1b]0;pwned\x07eve\u202e\r\udcff"


def test_autograder_grades_summary_prints_text_only(capsys):
    """Every line `autograder grade` prints at the end, with every student value hostile: the
    ids of lost and failed submissions, a reason quoting the student's error, a grading process's
    fault, the mistakes named by error class, the report's error; a folder not named by a plain id."""
    report = run.Report("03_zeroing_grad", seconds=1.0)
    report.outcomes = [worker.Outcome(HOSTILE, False, 1.0, f"ValueError: {HOSTILE}"),
                       worker.Outcome("bob", False, 1.0, "not_json"), worker.Outcome("carol", True, 1.0)]
    report.faults, report.retried = [(HOSTILE, "died")], [HOSTILE]
    report.mistakes = [(f"error:{HOSTILE}", 2), ("cleared_once", 1), (HOSTILE, 1)]
    report.page_error = f"OverflowError: {HOSTILE}"
    report.not_plain = run.plain_ids(["alice", HOSTILE])[1]
    command.say(report)
    out = capsys.readouterr()
    assert not CONTROLS.search(out.out + out.err), [line for line in (out.out + out.err).splitlines()
                                                    if CONTROLS.search(line)]
    assert "  eve \ufffd: ValueError: eve \ufffd" in out.out  # (the carriage return: a space)
    assert "     2 · the test cell failed with eve \ufffd" in out.out
    assert f"  {HOSTILE!r}: not graded: " in out.out  # the folder's name exactly, every character visible
    assert [line for line in (out.out + out.err).splitlines() if "pwned" in line] == \
        [line for line in out.out.splitlines() if line.startswith(f"  {HOSTILE!r}")]  # (there, as text)


def test_a_students_log_keeps_no_control_character(tmp_path):
    failures.keep_log(tmp_path, "a1", "bob", {"log": f"[AutogradeApp | ERROR] {HOSTILE}\nline 2",
                                              "error": f"Traceback:\n  {HOSTILE}"}, f"crash{HOSTILE}")
    text = failures.log_path(tmp_path, "a1", "bob").read_text()
    assert not CONTROLS.search(text) and text.count("\n") == 4
    assert failures.recorded(tmp_path, "a1") == {"bob": "crasheve \ufffd"}


def test_a_mistake_named_by_its_error_class():
    assert mistake_name(f"error:{HOSTILE}") == "the test cell failed with eve \ufffd"
    assert mistake_name(HOSTILE) == "eve \ufffd"  # a mistake the course has no name for
