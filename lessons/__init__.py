"""What the lesson notebooks import: widgets, plots, Quick Checks, exercises and hints.

``lessons.progress()`` shows which exercises of all four lessons pass right now.
"""


def progress(start=None):
    """Which exercises and Quick Check answers pass now, read from the notebooks on disk."""
    from .progress_report import progress as _progress

    return _progress(start)


def _jupyter_labextension_paths():
    """The course's JupyterLab extension (``labextension/``, built into ``lessons/labextension``),
    for ``jupyter labextension develop .``: what ``make`` and Binder's ``postBuild`` run after their
    editable install (a wheel installs it as data files; an editable install of setuptools does not)."""
    return [{"src": "labextension", "dest": "@autograd-lessons/lab"}]


def _show_stubs_as_sentences() -> None:
    from . import stub

    stub.install()


_show_stubs_as_sentences()
