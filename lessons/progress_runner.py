"""Run the graded cells of lesson notebooks (see lessons.progress) and print the results as JSON.

Each notebook gets a fresh IPython shell, so cells behave as in Jupyter (magics
included) and no state passes from one notebook to the next, and its messages are in
the notebook's own language (``language`` in its job), whatever the language of the
notebook that called ``lessons.progress()``.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import sys

MAX_MESSAGE = 4000  # characters of a check's message kept (every line of it: a prediction's parts)


def _run(shell, source: str):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return shell.run_cell(source, store_history=False, silent=True)


def run_notebook(job: dict) -> list:
    from IPython.core.interactiveshell import InteractiveShell

    from autograder.messages import known

    os.environ["AUTOGRAD_LESSONS_LANG"] = known(job.get("language"))  # read at every message
    InteractiveShell.clear_instance()
    shell = InteractiveShell.instance()
    _run(shell, job["setup"])
    for source in job["answers"]:
        _run(shell, source)
    results = []
    for test in job["tests"]:
        outcome = _run(shell, test["source"])
        error = outcome.error_in_exec or outcome.error_before_exec
        message = "" if error is None else (
            str(error) if isinstance(error, AssertionError) else f"{type(error).__name__}: {error}")
        results.append({"id": test["id"], "points": test["points"], "passed": error is None,
                        "message": message[:MAX_MESSAGE]})
    return results


def main() -> None:
    jobs = json.loads(sys.stdin.read())
    results = {name: run_notebook(job) for name, job in jobs.items()}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
