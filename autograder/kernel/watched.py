"""What lesson 2's function exercises (derivative, numerical_grad, weighted_grad) report about a
student's call: its value and how it called the judge's function (``wire.scenarios.functions.
Watched``: on a tensor that requires grad, and whether a gradient flowed back through it)."""
from __future__ import annotations

from ..wire.codec import encode
from ..wire.scenarios.functions import Watched


def report(result, failed, watched: Watched, **more) -> dict:
    """The observation of one call: its error (``running.call``'s failure), or its value and
    the calls ``watched`` saw."""
    if failed:
        return {"error": failed.to_data()}
    return {"value": encode(result), "calls": watched.calls, "calls_with_grad": watched.calls_with_grad,
            "gradients_back": watched.gradients_back, **more}
