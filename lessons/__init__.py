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


def _optimizers_without_the_compiler() -> None:
    """In a kernel (a lesson's set-up cell imports torch first): see ``compiler_on_demand``.
    Elsewhere (the lab's server, the grader) torch is not imported and nothing happens."""
    import sys

    if "torch" in sys.modules:
        from . import compiler_on_demand

        compiler_on_demand.install()


_show_stubs_as_sentences()
_optimizers_without_the_compiler()
