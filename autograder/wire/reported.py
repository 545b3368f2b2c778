"""What a verdict's fields may hold once they come from another process, and what a kernel may
report.

A verdict's fields fill its message where a person reads it: the feedback page, formgrader, the
class report, the instructor's terminal. A kernel is the student's, and it reports failures of
its own (``{"error": verdict}``: the student's function raised, is not a function, ...) and the
diagnosis of a training loop: fields it chose. A field that does not fit its template stopped
the whole class report once (``10**400`` in a plural's count: ``OverflowError``).

Two checks, one for every verdict read from JSON and one for what a kernel reports:

* ``plain(fields)``: the shape of any verdict's fields (``Verdict.from_data``, which reads the
  judge's verdicts in the grader and verdicts kept in autograded notebooks): strings of
  at most ``MAX_TEXT`` characters, whole numbers within ``MAX_WHOLE``, floats (a diverging loss
  is ``nan`` or ``inf``, and honest), booleans, ``None``, short lists of those, and messages
  nested at most ``messages.MAX_NESTING`` deep; string keys of at most 40 characters, at most
  ``MAX_FIELDS`` of them.
* ``fits(key, fields)``: a kernel's failure must be one of the messages a kernel gives
  (``DECLARED``: each key with the type and range of each of its fields, read from the
  kernel's own code in ``autograder/kernel``), with no other field, and must render. The
  judge refuses anything else like any forged report (``Verdict.reported_failure``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

MAX_TEXT = 10_000  # characters of a string field (the kernel cuts what it quotes to a few hundred)
MAX_WHOLE = 10 ** 15  # a whole-number field's size (counts, steps, lines)
MAX_FIELDS = 32
MAX_ITEMS = 100  # items of a list field
FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")
MISTAKE = re.compile(r"[a-z][a-z0-9_]{0,63}")  # a mistake's id, as the kernel names them


def _scalar(value) -> bool:
    if value is None or isinstance(value, (bool, float)):
        return True
    if isinstance(value, int):
        return -MAX_WHOLE <= value <= MAX_WHOLE
    return isinstance(value, str) and len(value) <= MAX_TEXT


def plain(fields, depth: int = 0) -> bool:
    """Whether ``fields`` have the shape every verdict's fields have (see the module)."""
    from ..messages import MAX_NESTING

    if not isinstance(fields, dict) or len(fields) > MAX_FIELDS or depth > MAX_NESTING:
        return False
    for name, value in fields.items():
        if not (isinstance(name, str) and FIELD_NAME.fullmatch(name)):
            return False
        if isinstance(value, dict):
            if set(value) - {"$key", "fields"} or not isinstance(value.get("$key"), str) \
                    or len(value["$key"]) > 100 or not plain(value.get("fields", {}), depth + 1):
                return False
        elif isinstance(value, list):
            if len(value) > MAX_ITEMS or not all(_scalar(item) and not isinstance(item, list) for item in value):
                return False
        elif not _scalar(value):
            return False
    return True


# -- what a kernel may report ------------------------------------------------------------------
@dataclass(frozen=True)
class Text:
    longest: int

    def fits(self, value) -> bool:
        return isinstance(value, str) and len(value) <= self.longest


@dataclass(frozen=True)
class Whole:
    low: int
    high: int

    def fits(self, value) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and self.low <= value <= self.high


@dataclass(frozen=True)
class Real:
    """A float, whatever its value (a diverging loss is ``nan`` or ``inf``: it renders as such)."""

    def fits(self, value) -> bool:
        return isinstance(value, float) or Whole(-2 ** 53, 2 ** 53).fits(value)


@dataclass(frozen=True)
class Message:
    """A field that is itself one of these messages (``wire.verdict.nested``)."""
    keys: tuple  # ((key, {field: kind}), ...)

    def fits(self, value) -> bool:
        if not isinstance(value, dict) or set(value) - {"$key", "fields"}:
            return False
        declared = dict(self.keys).get(value.get("$key"))
        return declared is not None and _fields_fit(declared, value.get("fields", {}))


def _fields_fit(declared: dict, fields) -> bool:
    if not isinstance(fields, dict) or set(fields) - set(declared):
        return False
    for name, value in fields.items():
        kinds = declared[name] if isinstance(declared[name], tuple) else (declared[name],)
        if not any(kind.fits(value) for kind in kinds):
            return False
    return True


NAME = Text(100)  # a function's or variable's name
TYPE = Text(100)  # a type's name (``type(x).__name__``; the kernel cuts a student's class name)
QUOTED = Text(400)  # the first line of an error's text (the kernel keeps 300 characters)
LINE = Whole(1, 10 ** 7)
WHERE = (Text(1_000), Message((("general.where", {"line": LINE, "code": Text(400)}), ("general.where_unknown", {}))))
STEP = Whole(1, 10_000)
STEPS = Whole(0, 10 ** 9)  # optimizer steps a loop took, losses it returned
BATCHES = Whole(1, 10_000)
ACCUM = Whole(1, 10_000)
HELD = Text(2_000)  # which batches a gradient held, in words ("batches 1 + 2", "the stale gradients + batch 1")
NUMBER = Text(40)  # a number the kernel wrote (``f"{x:g}"``)
STEP_FIELDS = {"step": STEP, "where": WHERE, "used": HELD, "backward_where": WHERE, "expected": HELD, "accum": ACCUM}

DECLARED = {
    "loop.crashed": {"error": TYPE, "where": WHERE, "text": QUOTED},
    "loop.batches_indexed": {"text": QUOTED},
    "loop.not_callable": {"name": NAME},
    "loop.not_implemented": {"name": NAME},
    "loop.other_optimizer": {"where": WHERE},
    "loop.never_stepped": {"unit": Message((("loop.unit_batch", {}), ("loop.unit_group", {})))},
    "loop.step_count_every_micro": {"got": STEPS, "batches": BATCHES, "accum": ACCUM, "expected": STEPS},
    "loop.step_count": {"got": STEPS, "count": STEPS, "batches": BATCHES, "expected": STEPS, "where": WHERE,
                        "rule": Message((("loop.rule_batch", {}), ("loop.rule_group", {"accum": ACCUM})))},
    **{f"loop.{key}": STEP_FIELDS for key in (
        "step_before_backward_empty", "no_backward", "stale_first_step", "never_cleared", "cleared_once",
        "cleared_some_steps", "step_before_backward", "unscaled", "stepped_mid_group", "cleared_inside_group",
        "wrong_gradient")},
    "loop.cleared_before_step": {**STEP_FIELDS, "clear_where": Text(1_100)},
    "loop.backward_twice": {**STEP_FIELDS, "times": NUMBER},
    "loop.wrong_scale": {**STEP_FIELDS, "factor": NUMBER},
    "loop.changed_after_loop": {"where": WHERE},
    "loop.losses_not_list": {"got": (TYPE, Message((("loop.list_holding", {"type": TYPE}),)))},
    "loop.losses_length": {"got": STEPS, "count": STEPS, "expected": BATCHES},
    "loop.losses_tensors": {"got": TYPE},
    "loop.losses_values": {"batch": BATCHES, "got": Real(), "expected": Real()},
    **{f"errors.{key}": {"where": WHERE} for key in (
        "backward_twice_freed", "inplace_leaf", "inplace_saved", "non_scalar", "no_grad_fn", "zero_on_none",
        "non_leaf_optimizer", "flag_on_non_leaf")},
    "manual.not_leaf": {"name": NAME},
    "manual.cleared_before_update": {},
    "value_backward.not_class": {"name": NAME},
    "value_backward.not_written": {"name": NAME},
}


def fits(mistake, key, fields) -> bool:
    """Whether a kernel's failure is one a kernel gives: a declared message whose fields are of
    their declared types and ranges, and that renders in every language (see the module)."""
    from .. import messages

    if not (isinstance(mistake, str) and MISTAKE.fullmatch(mistake)) or key not in DECLARED:
        return False
    if not _fields_fit(DECLARED[key], fields):
        return False
    malformed = messages.render("judge.malformed", {}, "en")
    return all(messages.render(key, fields, lang) != malformed for lang in messages.LANGUAGES)
