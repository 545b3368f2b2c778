"""The loop grader against the catalogue of student solutions (tests/catalogue.py): the
judge's verdict from the data the kernel reports, and the diagnosis that explains it."""
from __future__ import annotations

import warnings

import pytest
import torch
import torch.optim.optimizer as optimizer_module
from catalogue import TRAIN_ACCUMULATE as ACCUM_ENTRIES
from catalogue import TRAIN_LOOP as LOOP_ENTRIES
from judging import judge_function

from autograder.exercises.train_loop import judge as train_loop
from autograder.judges import training_loop
from autograder.kernel.loop import diagnose, observe
from autograder.kernel.loop.case import LoopCase
from autograder.kernel.loop.trace import LoopTracer

ENTRIES = LOOP_ENTRIES + ACCUM_ENTRIES


def _judge(entry, which, seed=None):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing the grader does may warn outside the tracer
        return judge_function(entry.function, entry.load(), which, seed)


def test_catalogue_is_large_enough():
    assert len(ENTRIES) >= 25
    assert sum(e.mistake is None for e in ENTRIES) >= 10
    assert len({e.mistake for e in ENTRIES if e.mistake}) >= 15


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e.function}:{e.name}")
def test_verdict_and_message(entry):
    (visible, _), (hidden, _) = _judge(entry, "visible"), _judge(entry, "hidden")
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


@pytest.mark.slow
@pytest.mark.parametrize("seed", [101, 20_202, 3_030_303])
def test_secret_scenarios_give_the_same_verdicts(seed):
    """While grading, every scenario comes from the judge's secret: every right loop must
    still pass and every wrong one still fail (no tolerance may depend on the public seeds)."""
    for entry in ENTRIES:
        verdict, _ = _judge(entry, "all", seed)
        assert verdict.ok is (entry.mistake is None), f"{entry.function}:{entry.name}: {verdict.message}"


def test_the_judge_alone_rejects_a_wrong_loop_whatever_the_diagnosis_says():
    """The kernel's diagnosis is only an explanation: a report of a wrong trajectory with a
    forged "ok" diagnosis still fails, and a forged failure cannot fail a right loop."""
    data = train_loop.scenario(train_loop.CASES["visible"][0], 5)
    wrong = next(e for e in LOOP_ENTRIES if e.name == "never_cleared").load()
    observation = observe(wrong, data, "train")
    observation["diagnosis"] = {"ok": True, "mistake": "", "key": "", "fields": {}}
    verdict = train_loop.verify(data, observation)
    assert not verdict.ok and verdict.mistake == "trajectory" and "After step 1," in verdict.message
    right = next(e for e in LOOP_ENTRIES if e.name == "canonical").load()
    observation = observe(right, data, "train")
    observation["diagnosis"] = {"ok": False, "mistake": "never_cleared", "key": "loop.never_cleared", "fields": {}}
    assert train_loop.verify(data, observation).ok


@pytest.mark.parametrize("tamper,mistake", [
    (lambda o: o.update(steps=o["steps"][:-1]), "step_count"),
    (lambda o: o["steps"][2][0][0].__setitem__(0, 9.0), "trajectory"),
    (lambda o: o.update(losses=[1.0, 2.0, 3.0, 4.0]), "losses"),
    (lambda o: o.update(steps="lots"), "malformed"),
    (lambda o: o["steps"][0].pop(), "malformed"),
])
def test_a_forged_report_fails(tamper, mistake):
    data = train_loop.scenario(train_loop.CASES["visible"][0], 8)
    right = next(e for e in LOOP_ENTRIES if e.name == "canonical").load()
    observation = observe(right, data, "train")
    tamper(observation)
    verdict = train_loop.verify(data, observation)
    assert not verdict.ok and verdict.mistake == mistake


def test_trace_records_which_batch_each_step_used():
    entry = next(e for e in LOOP_ENTRIES if e.name == "never_cleared")
    case = LoopCase(train_loop.scenario(train_loop.CASES["visible"][0], 3))
    _, trace = diagnose.run(entry.load(), case)
    assert [f.batch for f in trace.forwards] == [0, 1, 2, 3]
    assert len(trace.backwards) == 4 and len(trace.steps) == 4
    assert set(trace.steps[-1].ledgers[0]) == {"stale", 0, 1, 2, 3}


def test_closure_steps_are_recorded_with_the_gradient_they_used():
    case = LoopCase(train_loop.scenario(train_loop.CASES["visible"][0], 3))
    entry = next(e for e in LOOP_ENTRIES if e.name == "closure_step")
    verdict, trace = diagnose.run(entry.load(), case)
    assert verdict.ok, verdict.message
    assert [dict(s.ledgers[0]) for s in trace.steps] == [{0: 1.0}, {1: 1.0}, {2: 1.0}, {3: 1.0}]


def test_grader_does_not_leave_hooks_behind():
    """On the very model and optimizer the loop was traced on."""
    case = LoopCase(train_loop.scenario(train_loop.CASES["visible"][0], 3))
    model = case.make_model()
    optimizer = case.make_optimizer(model.parameters())
    tracer = LoopTracer(model, optimizer, [x for x, _ in case.make_batches()])
    right = next(e for e in LOOP_ENTRIES if e.name == "canonical").load()
    tracer.run(right, model, optimizer, case.make_loss_fn(), case.make_batches())
    assert not model._forward_hooks and not optimizer._optimizer_step_pre_hooks
    assert not optimizer._optimizer_step_post_hooks
    assert all(not p._backward_hooks and not p._post_accumulate_grad_hooks for p in model.parameters())
    assert not optimizer_module._global_optimizer_pre_hooks
    assert "zero_grad" not in vars(model) and "zero_grad" not in vars(optimizer)
    before = (len(tracer.trace.forwards), len(tracer.trace.steps), len(tracer.trace.foreign_steps))
    model(torch.ones(1, 3)).sum().backward()
    optimizer.step()
    torch.optim.SGD(model.parameters(), lr=0.1).step()
    assert (len(tracer.trace.forwards), len(tracer.trace.steps), len(tracer.trace.foreign_steps)) == before


def test_scenarios_for_adam_have_no_gradient_within_rounding_of_zero():
    spec = dict(seed=0, n_batches=3, optimizer="adam", lr=0.01)
    for seed in range(30):
        data = training_loop.scenario(spec, seed)
        assert training_loop._first_gradient_is_clear(data)
