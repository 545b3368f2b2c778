"""FeedbackInLanguage: what nbgrader and IPython write on a feedback page, in the notebook's language.

The page's own words are the course's template's (``feedback_exporter``); two more things on
it come from elsewhere, in English:

* nbgrader's comment on an answer cell left as released, "No response." (``SaveAutoGrades``
  stores it in the gradebook and ``GetGrades`` puts it on the cell);
* the headers IPython writes into the traceback of an error in the student's own code (a demo
  cell that calls their broken function): "Traceback (most recent call last)", "Cell In[3],
  line 5", "File …/x.py:12, in f", "[... skipping hidden 1 frame]".

Each becomes the ``[feedback]`` entry of ``autograder/locale/<lang>.toml`` (``no_response``,
``traceback``, ``at_cell``, ``at_cell_in``, ``at_file``, ``skipped``), in IPython's colours.
What the error itself says (``NameError: name 'x' is not defined``) is Python's, and the code
quoted under a header is code: both stay as they are. A test cell's error is one line already
(``ConciseTestErrors``, which runs first).
"""
from __future__ import annotations

import re

from nbgrader.preprocessors import NbGraderPreprocessor

from ... import messages

NO_RESPONSE = "No response."  # nbgrader's auto comment (nbgrader.preprocessors.SaveAutoGrades)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
RULE = re.compile(r"-{20,}")
HEADER = re.compile(r"(?P<ename>\S+)(?P<gap>\s+)Traceback \(most recent call last\)")
AT_CELL = re.compile(r"Cell In\[(?P<cell>\d+)\], line (?P<line>\d+)(?:, in (?P<function>.+))?")
AT_FILE = re.compile(r"File (?P<file>.+):(?P<line>\d+), in (?P<function>.+)")
SKIPPED = re.compile(r"\[\.\.\. skipping hidden (?P<count>\d+) frames?\]")
RED, CYAN, GREEN, BLUE, RESET = "\x1b[31m", "\x1b[36m", "\x1b[32m", "\x1b[34m", "\x1b[39m"


def words(lang: str):
    def say(key: str, **fields) -> str:
        return messages.choose(messages._GRADER.raw(f"feedback.{key}", lang), lang, fields).format(**fields)
    return say


def entry_in_language(entry: str, say) -> str:
    """One entry of an IPython traceback (a string of one or more lines) with its header, if it
    has one, in the language of ``say``; the code it quotes unchanged."""
    first, sep, rest = entry.partition("\n")
    plain = ANSI.sub("", first)
    if RULE.fullmatch(plain.strip()):
        return entry
    if found := HEADER.fullmatch(plain.strip()):
        return f"{RED}{found['ename']}{RESET}{found['gap']}{say('traceback')}{sep}{rest}"
    if found := AT_CELL.fullmatch(plain.strip()):
        where = f"{say('in_prompt')}[{found['cell']}]"
        fields = {"cell": f"{GREEN}{where}{RESET}", "line": f"{GREEN}{found['line']}{RESET}"}
        header = (say("at_cell_in", function=f"{CYAN}{found['function']}{RESET}", **fields) if found["function"]
                  else say("at_cell", **fields))
        return f"{header}{sep}{rest}"
    if found := AT_FILE.fullmatch(plain.strip()):
        header = say("at_file", file=f"{GREEN}{found['file']}", line=f"{found['line']}{RESET}",
                     function=f"{CYAN}{found['function']}{RESET}")
        return f"{header}{sep}{rest}"
    if found := SKIPPED.search(plain):
        return entry.replace(first, plain.replace(found[0], say("skipped", count=int(found["count"]))), 1)
    return entry


class FeedbackInLanguage(NbGraderPreprocessor):
    """nbgrader's "No response." and IPython's traceback headers in the notebook's language."""

    def preprocess(self, nb, resources):
        lang = messages.notebook_language(nb)
        if lang == "en":  # nbgrader's and IPython's own words
            return nb, resources
        say = words(lang)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("comment") == NO_RESPONSE:
                meta["comment"] = say("no_response")
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error" and isinstance(output.get("traceback"), list):
                    output.traceback = [entry_in_language(entry, say) if isinstance(entry, str) else entry
                                        for entry in output.traceback]
        return nb, resources
