"""How long grading may spend on one notebook, and on one submission.

A cell has ``timeout`` seconds (nbgrader's setting). A notebook has ten cells' worth
(``notebook_budget``): an honest lesson notebook takes 2 to 5 s of its 1 200 s at this
course's timeout of 120 s, while one whose cells stop or garble the kernel again and
again (each costing a timeout, a restart and a replay) is cut off there, its remaining
cells unrun. A submission has every notebook's budget and five minutes for nbgrader's
own work (``submission_budget``); past that, its worker process is killed
(``pool.Pool(task_timeout=...)``), so no notebook can hold a grading run.
"""
from __future__ import annotations

DEFAULT_TIMEOUT = 30  # nbgrader's Execute.timeout
MARGIN = 300  # seconds for nbgrader's own work on a submission, and its feedback


def notebook_budget(notebook_timeout: int | None, timeout: int | None) -> float:
    """Seconds one notebook may take in all: ``notebook_timeout``, else ten times the cell timeout."""
    return float(notebook_timeout or 10 * (timeout or DEFAULT_TIMEOUT))


def submission_budget(config, notebooks: int) -> float:
    """Seconds one submission of ``notebooks`` notebooks may take, with the course's ``config``."""
    settings = config.JudgedExecute
    timeout = settings.get("timeout") or config.Execute.get("timeout")
    return notebooks * notebook_budget(settings.get("notebook_timeout"), timeout) + MARGIN
