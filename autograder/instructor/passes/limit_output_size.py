"""LimitOutputSize: no output of a graded notebook keeps more than ``max_chars`` characters.

nbgrader's LimitOutput keeps 1 000 lines of a stream and 100 lines of a traceback, but
one line can be any length: ``print("x" * 100_000_000)`` made a 100 MB autograded
notebook and feedback page, which every later step read and rendered again. Here every
text an output carries (a stream, each text or image type of a result or display, the
traceback as a whole) is cut to ``max_chars``, and a line in the student's language says
how much was left out. An error's name is cut too (it is the name of a class the student's
code may make, of any length). Honest lesson outputs are far below the limit (the largest, a
training loss table, is about 2 000 characters).
"""
from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Integer

from ... import messages


class LimitOutputSize(NbGraderPreprocessor):
    max_chars = Integer(100_000, config=True, help="Characters one output keeps of each text it carries")

    def preprocess(self, nb, resources):
        self._language = messages.notebook_language(nb)
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                output.text = self._cut(_text(output.get("text", "")))
            elif output.get("output_type") in ("execute_result", "display_data"):
                for mime, value in list(output.get("data", {}).items()):
                    text = value if isinstance(value, str) else _text(value)
                    if len(text) > self.max_chars:
                        output.data[mime] = self._cut(text) if mime.startswith("text/") else self._note(len(text))
            elif output.get("output_type") == "error":
                lines, kept = [], 0
                for line in output.get("traceback", []):
                    if kept + len(line) > self.max_chars:
                        lines.append(self._cut(line, self.max_chars - kept))
                        break
                    lines.append(line)
                    kept += len(line)
                output.traceback = lines
                output.evalue = self._cut(str(output.get("evalue", "")))
                output.ename = self._cut(str(output.get("ename", "")))
        return cell, resources

    def _cut(self, text: str, keep: int | None = None) -> str:
        keep = self.max_chars if keep is None else max(0, keep)
        if len(text) <= keep:
            return text
        return text[:keep] + "\n" + self._note(len(text) - keep)

    def _note(self, dropped: int) -> str:
        return messages.render("grading.output_cut", {"dropped": dropped, "kept": self.max_chars},
                               self._language)


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)
