"""Errors PyTorch (or Python) raises in students' code, each mapped to a named mistake.

The patterns are the exact texts PyTorch uses; the explanations live in the locale file.
"""
from __future__ import annotations

from ..wire.verdict import Verdict
from . import locations

# (mistake id, exception type name or None for any, text the message contains, message key)
CATALOGUE = [
    ("backward_through_freed_graph", "RuntimeError",
     "Trying to backward through the graph a second time", "errors.backward_twice_freed"),
    ("inplace_on_leaf", "RuntimeError",
     "a leaf Variable that requires grad is being used in an in-place operation", "errors.inplace_leaf"),
    ("inplace_on_saved_tensor", "RuntimeError",
     "modified by an inplace operation", "errors.inplace_saved"),
    ("non_scalar_backward", "RuntimeError",
     "grad can be implicitly created only for scalar outputs", "errors.non_scalar"),
    ("backward_without_graph", "RuntimeError",
     "does not require grad and does not have a grad_fn", "errors.no_grad_fn"),
    ("zero_on_none", "AttributeError",
     "'NoneType' object has no attribute 'zero_'", "errors.zero_on_none"),
    ("non_leaf_optimized", "ValueError", "can't optimize a non-leaf Tensor", "errors.non_leaf_optimizer"),
    ("flag_on_non_leaf", "RuntimeError", "you can only change requires_grad flags of leaf variables",
     "errors.flag_on_non_leaf"),
    ("batches_indexed", "TypeError", "'generator' object is not subscriptable", None),
    ("batches_indexed", "TypeError", "object of type 'generator' has no len()", None),
]


def classify(exc: BaseException) -> tuple[str, str | None]:
    """The mistake id and message key for an exception (``crashed`` if unknown)."""
    kind, text = type(exc).__name__, str(exc)
    for mistake, exc_type, pattern, key in CATALOGUE:
        if (exc_type is None or exc_type == kind) and pattern in text:
            return mistake, key
    return "crashed", None


def verdict_for(exc: BaseException, location) -> Verdict:
    """The verdict on a student's function that raised ``exc`` at ``location``."""
    mistake, key = classify(exc)
    where = locations.describe(location)
    if mistake == "batches_indexed":
        return Verdict.fail(mistake, "loop.batches_indexed", text=str(exc)[:300])
    if key is None:
        first_line = (str(exc).strip().splitlines() or [""])[0][:300]
        return Verdict.fail(mistake, "loop.crashed", error=type(exc).__name__[:100], where=where,
                            text=first_line)
    return Verdict.fail(mistake, key, where=where)
