"""LimitSourceSize: no cell of a graded notebook keeps more than ``max_cell`` characters of
source, and the notebook no more than ``max_total`` (nor more than ``max_cells`` cells).
It is the first pass a submission meets.

Everything after execution renders a cell's source: pygments colours every token, and
nbconvert parses the whole page again, so the grading process needs far more memory than the
text it renders. A 4 MB cell of ``a,a,a,…`` (a notebook well under the 40 MB a submission
may have) made a 96 MB feedback page and a grading process of 7 GB, outside every limit a
kernel has. Here, before the notebook runs, each cell is cut to ``max_cell`` characters and
the notebook to ``max_total``, with a line in the student's language (a comment, in a code
cell) saying how much was left out: that cell, probably no longer valid code, is what the
student loses. Honest notebooks are far below both limits: the largest lesson notebook holds
33 000 characters of source in all, its largest cell 1 300.
"""
from __future__ import annotations

from nbformat.v4 import new_markdown_cell
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Integer

from ... import messages


class LimitSourceSize(NbGraderPreprocessor):
    max_cell = Integer(20_000, config=True, help="Characters of source one cell keeps")
    max_total = Integer(200_000, config=True, help="Characters of source a notebook keeps, all cells together")
    max_cells = Integer(1_000, config=True, help="Cells a notebook keeps (the instructor's always stay)")

    def preprocess(self, nb, resources):
        self._language = messages.notebook_language(nb)
        self._left = self.max_total
        self._keep_cells(nb)
        return super().preprocess(nb, resources)

    def _keep_cells(self, nb) -> None:
        """The first ``max_cells`` cells. This pass runs first, before anything reads the cells
        one by one (350 000 empty cells, a 23 MB notebook, took a 3 GB grading process and seven
        minutes; 100 000 forged answer cells, a gradebook query each); a graded or locked cell
        of the instructor's that was cut comes back from the gradebook (OverwriteCells)."""
        if len(nb.cells) <= self.max_cells:
            return
        kept = nb.cells[:self.max_cells]
        note = messages.render("grading.cells_cut", {"dropped": len(nb.cells) - len(kept), "kept": self.max_cells},
                               self._language)
        nb.cells = kept + [new_markdown_cell(note, id="cells-cut")]

    def preprocess_cell(self, cell, resources, index):
        source = cell.get("source", "")
        if not isinstance(source, str):
            source = "".join(source)
        keep = max(0, min(self.max_cell, self._left))
        if len(source) > keep:
            note = messages.render("grading.source_cut", {"dropped": len(source) - keep, "kept": self.max_cell,
                                                          "total": self.max_total}, self._language)
            cell.source = source[:keep] + "\n" + ("# " + note if cell.cell_type == "code" else note)
            source = source[:keep]
        self._left -= len(source)
        return cell, resources
