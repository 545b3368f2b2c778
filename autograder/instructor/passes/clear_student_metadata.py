"""ClearStudentMetadata: a submitted notebook's metadata keeps only what the grader reads, checked.

Everything in a submission is the student's to write, metadata included, and metadata
reaches places a student should not: nbconvert renders notebook-level ``widgets`` state
with the widget manager's script in the instructor's browser, a cell's ``attachments``
become image sources, a cell id lands in an HTML attribute, and a notebook's language
once named the file the grader loaded its messages from. So, first thing after nbgrader
clears the outputs, every field the grader does not read is dropped and every field it
reads is checked:

======================================  ===================================================
field                                   kept as
======================================  ===================================================
``metadata.autograd_lessons.language``  one of the course's language codes, else ``en``
``metadata.kernelspec``                 as is (nbgrader's OverwriteKernelspec replaces it)
``metadata.language_info``              ``{"name": "python"}``
cell ``metadata.nbgrader``              a dict, or dropped (OverwriteCells then checks it
                                        against the gradebook, FastCheckCellMetadata its form)
cell ``id``                             if nbformat's pattern allows it, else a new one
any other metadata, cell attachments    dropped
======================================  ===================================================

``autograder.verdict`` is written later, by ApplyVerdicts, from the judge: a student's own
``autograder`` metadata never survives to be read by the class report.
"""
from __future__ import annotations

import re

from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

from ... import messages

CELL_ID = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")


class ClearStudentMetadata(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        language = messages.notebook_language(nb)
        kept = NotebookNode(language_info=NotebookNode(name="python"),
                            autograd_lessons=NotebookNode(language=language))
        if isinstance(nb.metadata.get("kernelspec"), dict):
            kept["kernelspec"] = nb.metadata["kernelspec"]
        nb.metadata = kept
        used: set = set()
        for index, cell in enumerate(nb.cells):
            nbgrader = cell.get("metadata", {}).get("nbgrader")
            cell.metadata = NotebookNode(nbgrader=nbgrader) if isinstance(nbgrader, dict) else NotebookNode()
            cell.pop("attachments", None)
            if "id" in cell and (not isinstance(cell.id, str) or not CELL_ID.match(cell.id) or cell.id in used):
                cell.id = f"cell-{index}"
                while cell.id in used:
                    cell.id += "-x"
            if "id" in cell:
                used.add(cell.id)
        return nb, resources
