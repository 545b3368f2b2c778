"""An answer nobody has written yet says so, in the notebook's language.

nbgrader leaves ``raise NotImplementedError()`` where each answer goes. Run All on a fresh
lesson runs those cells too (their ``raises-exception`` tag lets it go on), and IPython's
traceback of that line, in English, came above every check's message. In a notebook's kernel,
the lessons package asks IPython to show that exception, raised with no message (the stub's,
or a function the student has not written yet), as one sentence instead; a
``NotImplementedError`` with a message of its own is shown as usual.
"""
from __future__ import annotations

from autograder.kernel.screen import wrap

from .text import text


def _show(shell, etype, value, tb, tb_offset=None):
    if value.args:  # not the stub: the usual traceback
        stb = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
    else:
        stb = wrap(text("exercise.stub")).splitlines()
    shell._showtraceback(etype, value, stb)  # IPython leaves showing it to the handler
    return stb


def install() -> None:
    """In a notebook's kernel (IPython), show the stub's exception as one sentence."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None and not shell.custom_exceptions:
        shell.set_custom_exc((NotImplementedError,), _show)
