"""The loop grader against the catalogue of student solutions (tests/catalogue.py)."""
from __future__ import annotations

import warnings

import pytest

from autograder.cases import TRAIN_ACCUMULATE, TRAIN_LOOP
from autograder.judge import judge_loop

from catalogue import TRAIN_ACCUMULATE as ACCUM_ENTRIES
from catalogue import TRAIN_LOOP as LOOP_ENTRIES

ENTRIES = LOOP_ENTRIES + ACCUM_ENTRIES


def _tables(entry):
    return TRAIN_LOOP if entry.function == "train" else TRAIN_ACCUMULATE


def _judge_all(entry, which):
    """Judge an entry on each case of a set; return the first failing verdict (or the last)."""
    fn = entry.load()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing the grader does may warn outside the tracer
        for case in _tables(entry)[which]:
            verdict, _ = judge_loop(fn, case, name=entry.function)
            if not verdict.ok:
                return verdict
    return verdict


def test_catalogue_is_large_enough():
    assert len(ENTRIES) >= 25
    assert sum(e.mistake is None for e in ENTRIES) >= 10
    assert len({e.mistake for e in ENTRIES if e.mistake}) >= 15


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e.function}:{e.name}")
def test_verdict_and_message(entry):
    visible = _judge_all(entry, "visible")
    hidden = _judge_all(entry, "hidden")
    if entry.mistake is None:
        assert visible.ok, visible.message
        assert hidden.ok, hidden.message
        return
    verdict = visible if entry.cases == "visible" else hidden
    if entry.cases == "hidden":
        assert visible.ok, f"the visible case should pass; got {visible.message}"
    assert not verdict.ok, "a wrong loop passed"
    assert verdict.mistake == entry.mistake, verdict.message
    for word in entry.words:
        assert word in verdict.message, f"{word!r} missing from: {verdict.message}"


def test_trace_records_which_batch_each_step_used():
    entry = next(e for e in LOOP_ENTRIES if e.name == "never_cleared")
    verdict, trace = judge_loop(entry.load(), TRAIN_LOOP["visible"][0])
    assert [f.batch for f in trace.forwards] == [0, 1, 2, 3]
    assert len(trace.backwards) == 4 and len(trace.steps) == 4
    last = trace.steps[-1].ledgers[0]
    assert set(last) == {"stale", 0, 1, 2, 3}


def test_grader_does_not_leave_hooks_behind():
    entry = next(e for e in LOOP_ENTRIES if e.name == "canonical")
    case = TRAIN_LOOP["visible"][0]
    _, trace = judge_loop(entry.load(), case)
    model = case.make_model()
    assert not model._forward_hooks
    # the tracer removed its global optimizer hook: stepping another optimizer records nothing
    before = len(trace.foreign_steps)
    import torch
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.ones(1, 3)).sum().backward()
    opt.step()
    assert len(trace.foreign_steps) == before
