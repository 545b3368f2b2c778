"""Name the mistake in a traced training loop, by gradient provenance.

At each ``step()`` every parameter's ``.grad`` must equal the gradient of the loss of
the batch(es) that step is meant to use, at the parameters as they were then. The
reference gradient is computed on a separate copy of the model with
``torch.autograd.grad``, so it never depends on the ``.grad`` the student touched.
When a step is wrong, its ledger (which batches' gradients it actually held) names
the mistake, the step, the batches and the line.

This runs in the student's kernel and only explains: whether the loop earns its
points is decided by the judge (autograder.judges.training_loop), which
checks the parameters every step produced.
"""
from __future__ import annotations

from collections import Counter

import torch

from ... import messages
from ...wire.verdict import PASS, Verdict, nested
from .. import errors, locations
from .case import LoopCase
from .trace import STALE, UNKNOWN, LoopTracer, Trace, close, is_zero


# -- reference computations ---------------------------------------------------------
class Reference:
    """Gradients and losses of a case's model at given parameters, independent of .grad."""

    def __init__(self, case: LoopCase, batches: list):
        self.case = case
        self.batches = batches
        self.twin = case.make_model()
        self.loss_fn = case.make_loss_fn()

    def _load(self, params: list) -> list:
        with torch.no_grad():
            for mine, value in zip(self.twin.parameters(), params):
                mine.copy_(value)
        return list(self.twin.parameters())

    def mean_loss(self, params: list, group: list) -> torch.Tensor:
        self._load(params)
        losses = [self.loss_fn(self.twin(self.batches[b][0]), self.batches[b][1]) for b in group]
        return torch.stack(losses).mean()

    def grad(self, params: list, group: list) -> list:
        loss = self.mean_loss(params, group)
        return list(torch.autograd.grad(loss, list(self.twin.parameters())))


def _all_close(grads: list, reference: list, factor: float = 1.0) -> bool:
    for g, r in zip(grads, reference):
        if g is None:
            if not is_zero(r):
                return False
        elif not close(g, factor * r):
            return False
    return True


# -- what a step held ----------------------------------------------------------------
def composition(trace: Trace, ledger: Counter) -> Counter:
    """Turn a ledger (backward pass → coefficient) into batches → coefficient."""
    batches: Counter = Counter()
    for term, coef in ledger.items():
        if term in (STALE, UNKNOWN):
            batches[term] += coef
        else:
            for b in trace.batches_of(term):
                batches[b] += coef
    return batches


def describe(batches: Counter) -> str:
    if not batches:
        return messages.text("general.nothing")
    if UNKNOWN in batches:
        return messages.text("general.unknown")
    parts = []
    if STALE in batches:
        parts.append(messages.text("general.stale"))
    numbered = sorted(b for b in batches if b != STALE)
    counts = {round(batches[b], 3) for b in numbered}
    names = [str(b + 1) for b in numbered]
    if numbered:
        key = "general.batch_list" if len(numbered) == 1 else "general.batches_list"
        label = messages.text(key, batches=messages.text("general.and").join(names))
        if len(counts) == 1 and counts != {1.0} and next(iter(counts)) > 1:
            label = messages.text("general.multiple", n=f"{next(iter(counts)):g}", label=label)
        parts.append(label)
    return messages.text("general.and").join(parts)


def describe_group(group: list) -> str:
    return describe(Counter({b: 1.0 for b in group}))


def _first_param_off(step, reference: list) -> int:
    for i, (g, r) in enumerate(zip(step.grads, reference)):
        if (g is None and not is_zero(r)) or (g is not None and not close(g, r)):
            return i
    return 0


def _fit_factor(grads: list, reference: list) -> float:
    """The scalar c that best explains grads ≈ c · reference."""
    num = sum(float((g * r).sum()) for g, r in zip(grads, reference) if g is not None)
    den = sum(float((r * r).sum()) for r in reference)
    return num / den if den else 0.0


def label_step(trace: Trace, step, case: LoopCase, reference: list) -> tuple[str, Counter]:
    """Name what a step's gradient was: ok, empty, stale, accumulated, lagging, …"""
    i = _first_param_off(step, reference)
    held = composition(trace, step.ledgers[i])
    if _all_close(step.grads, reference):
        return "ok", held
    group = case.group(step.index)
    if all(is_zero(g) for g in step.grads):
        return "empty", held
    if STALE in held:
        return "stale", held
    if UNKNOWN in held:
        return "other", held
    present = set(held)
    if present == set(group):
        counts = {round(held[b], 3) for b in group}
        if case.accum_steps > 1:
            if _all_close(step.grads, reference, case.accum_steps):
                return "unscaled", held
            factor = _fit_factor(step.grads, reference)
            if _all_close(step.grads, reference, factor):
                return "wrong_scale", Counter({b: factor for b in group})
            return "other", held
        if len(counts) == 1 and next(iter(counts)) > 1 and _all_close(
                step.grads, reference, next(iter(counts))):
            return "doubled", held
        return "other", held
    if present < set(group):
        return "partial", held
    if set(group) <= present:
        return "accumulated", held
    if present and max(present) < min(group):
        return "lagging", held
    return "other", held


# -- the verdict ---------------------------------------------------------------------
def _error_verdict(trace: Trace, name: str) -> Verdict:
    if isinstance(trace.error, NotImplementedError):
        return Verdict.fail("not_implemented", "loop.not_implemented", name=name)
    return errors.verdict_for(trace.error, trace.error_location)


def _step_count_verdict(trace: Trace, case: LoopCase) -> Verdict | None:
    got = len(trace.steps)
    if got == case.n_steps:
        return None
    if got == 0:
        if trace.foreign_steps:
            return Verdict.fail("other_optimizer", "loop.other_optimizer",
                                where=locations.describe(trace.foreign_steps[0]))
        unit = "loop.unit_group" if case.accum_steps > 1 else "loop.unit_batch"
        return Verdict.fail("never_stepped", "loop.never_stepped", unit=nested(unit))
    twice = any(a.backwards_before == b.backwards_before for a, b in zip(trace.steps, trace.steps[1:]))
    if case.accum_steps > 1 and got == case.n_batches and not twice:
        return Verdict.fail("stepped_every_micro_batch", "loop.step_count_every_micro", got=got,
                            batches=case.n_batches, accum=case.accum_steps, expected=case.n_steps)
    rule = (nested("loop.rule_group", accum=case.accum_steps) if case.accum_steps > 1
            else nested("loop.rule_batch"))
    return Verdict.fail("step_count", "loop.step_count", got=got, count=got, batches=case.n_batches,
                        expected=case.n_steps, rule=rule,
                        where=locations.describe(trace.steps[-1].location))


def _clear_between(trace: Trace, step) -> str:
    """Where the gradients were cleared after the last backward before ``step``."""
    for clear in reversed(trace.clears):
        if clear.after_backward == step.backwards_before and clear.after_backward > 0:
            return messages.text("loop.clear_where", where=locations.describe(clear.location))
    return ""


def _step_verdict(trace: Trace, case: LoopCase, labels: list) -> Verdict | None:
    bad = [k for k, (label, _) in enumerate(labels) if label != "ok"]
    if not bad:
        return None
    k = bad[0]
    label, held = labels[k]
    step = trace.steps[k]
    last_backward = trace.backwards[step.backwards_before - 1] if step.backwards_before else None
    fields = dict(step=k + 1, where=locations.describe(step.location), used=describe(held),
                  backward_where=locations.describe(last_backward and last_backward.location),
                  expected=describe_group(case.group(k)), accum=case.accum_steps)
    later = [lab for lab, _ in labels[k + 1:]]
    if label == "empty":
        backward_since_last_step = step.backwards_before > (
            trace.steps[k - 1].backwards_before if k > 0 else 0)
        if not backward_since_last_step:
            if len(trace.backwards) > step.backwards_before:
                after = trace.backwards[step.backwards_before]
                fields["backward_where"] = locations.describe(after.location)
                return Verdict.fail("step_before_backward", "loop.step_before_backward_empty",
                                    **fields)
            return Verdict.fail("no_backward", "loop.no_backward", **fields)
        return Verdict.fail("cleared_before_step", "loop.cleared_before_step",
                            clear_where=_clear_between(trace, step), **fields)
    if label == "stale":
        if later and all(lab == "ok" for lab in later):
            return Verdict.fail("stale_first_step", "loop.stale_first_step", **fields)
        if later and all(lab == "lagging" for lab in later):
            return _step_verdict(trace, case, [("ok", Counter())] + labels[1:])
        worst = next((j for j in range(len(labels) - 1, k, -1) if labels[j][0] != "ok"), k)
        fields.update(step=worst + 1, where=locations.describe(trace.steps[worst].location),
                      used=describe(labels[worst][1]), expected=describe_group(case.group(worst)))
        return Verdict.fail("never_cleared", "loop.never_cleared", **fields)
    if label == "accumulated":
        if k > 0 and all(lab == "accumulated" for lab in later) and labels[0][0] == "ok":
            return Verdict.fail("cleared_once", "loop.cleared_once", **fields)
        return Verdict.fail("cleared_some_steps", "loop.cleared_some_steps", **fields)
    if label == "lagging":
        return Verdict.fail("step_before_backward", "loop.step_before_backward", **fields)
    if label == "doubled":
        times = f"{max(held.values()):g}"
        return Verdict.fail("backward_twice", "loop.backward_twice", times=times, **fields)
    if label == "unscaled":
        return Verdict.fail("unscaled_accumulation", "loop.unscaled", **fields)
    if label == "partial":
        if step.backwards_before < case.group(k)[-1] + 1:  # no clear inside: the step came early
            return Verdict.fail("stepped_mid_group", "loop.stepped_mid_group", **fields)
        return Verdict.fail("cleared_inside_group", "loop.cleared_inside_group", **fields)
    if label == "wrong_scale":
        factor = next(iter(held.values()))
        return Verdict.fail("wrong_scale", "loop.wrong_scale", factor=f"{factor:.3g}", **fields)
    return Verdict.fail("wrong_gradient", "loop.wrong_gradient", **fields)


def _after_loop_verdict(trace: Trace) -> Verdict | None:
    """The caller must get the model as the last step left it (not a saved best, not one more
    update of the function's own)."""
    last = trace.steps[-1]
    if len(last.after) == len(trace.final) and all(torch.equal(a, b) for a, b in zip(last.after, trace.final)):
        return None
    return Verdict.fail("changed_after_loop", "loop.changed_after_loop", where=locations.describe(last.location))


def _losses_verdict(result, trace: Trace, case: LoopCase, reference: Reference) -> Verdict | None:
    if not isinstance(result, list):
        return Verdict.fail("losses_not_list", "loop.losses_not_list", got=type(result).__name__[:100])
    if len(result) != case.n_batches:
        return Verdict.fail("losses_length", "loop.losses_length", got=len(result), count=len(result),
                            expected=case.n_batches)
    for b, value in enumerate(result):
        if isinstance(value, torch.Tensor):
            return Verdict.fail("losses_tensors", "loop.losses_tensors", got=type(value).__name__[:100])
        if not isinstance(value, float):
            return Verdict.fail("losses_not_list", "loop.losses_not_list",
                                got=nested("loop.list_holding", type=type(value).__name__[:100]))
        with torch.no_grad():
            expected = reference.mean_loss(trace.steps[b].params, [b]).item()
        if abs(value - expected) > 1e-4 * max(1.0, abs(expected)):
            return Verdict.fail("losses_values", "loop.losses_values", batch=b + 1, got=value,
                                expected=expected)
    return None


def run(fn, case: LoopCase, name: str = "train") -> tuple[Verdict, Trace]:
    """Run ``fn`` on ``case`` under the tracer; return the diagnosis and the trace."""
    if not callable(fn):
        return Verdict.fail("not_callable", "loop.not_callable", name=name), Trace()
    model = case.make_model()
    case.add_stale_gradients(model)
    optimizer = case.make_optimizer(model.parameters())
    loss_fn = case.make_loss_fn()
    batches = case.make_batches()
    handed = (b for b in batches) if case.as_generator else list(batches)
    tracer = LoopTracer(model, optimizer, [x for x, _ in batches])
    if case.accum_steps > 1:
        trace = tracer.run(fn, model, optimizer, loss_fn, handed, case.accum_steps)
    else:
        trace = tracer.run(fn, model, optimizer, loss_fn, handed)
    return diagnose(trace, case, batches, name), trace


def diagnose(trace: Trace, case: LoopCase, batches: list, name: str) -> Verdict:
    if trace.error is not None:
        return _error_verdict(trace, name)
    verdict = _step_count_verdict(trace, case)
    if verdict:
        return verdict
    reference = Reference(case, batches)
    labels = [label_step(trace, step, case, reference.grad(step.params, case.group(step.index)))
              for step in trace.steps]
    verdict = _step_verdict(trace, case, labels)
    if verdict:
        return verdict
    verdict = _after_loop_verdict(trace)
    if verdict:
        return verdict
    if case.accum_steps == 1:
        verdict = _losses_verdict(trace.result, trace, case, reference)
        if verdict:
            return verdict
    return PASS
