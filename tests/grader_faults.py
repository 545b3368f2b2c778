"""A fault of the grader's own, for tests: a pass (an nbgrader preprocessor a test course's
nbgrader_config.py names) whose grading process grows without end for one student, as a leak in
the grader's own code would. What stops it is the grading worker's memory limit
(``grading.worker_memory``): a local pool's watch or a Dask worker's ``watched``."""
from __future__ import annotations

import time

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

CHUNK = 2 ** 26  # 64 MB at a time, written (so resident)
MOST = 64  # chunks (4 GB): if no limit ends the process by then, the pass gives up and the test fails


class Grows(NbGraderPreprocessor):  # (nbgrader's: enabled once named, as nbconvert's are not)
    student = Unicode("memory_hog", help="the student whose grading grows").tag(config=True)

    def preprocess(self, nb, resources):
        if resources.get("nbgrader", {}).get("student") == self.student:
            held = []
            while len(held) < MOST:
                held.append(b"x" * CHUNK)
                time.sleep(0.05)  # (paced: a watch that looks twice a second ends it well before MOST)
        return nb, resources
