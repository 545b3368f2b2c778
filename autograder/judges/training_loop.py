"""Lesson 3, exercise (b) and practice exercise (e): drawing the scenario a training loop runs
on, and its check.

The scenario is data (what it means: ``wire.scenarios.training_loop``): the model's initial
parameters, the batches, the gradients already sitting in ``.grad`` when the loop starts
(as after an earlier epoch), and the optimizer's settings. The kernel rebuilds the model and
optimizer from it, runs the student's loop and reports the parameters after every
``optimizer.step()`` and the losses it returned.

``verify`` replays the loop step by step from what the kernel reported: before step
*k* it puts the model at the parameters the student's step *k−1* left, computes the
gradient of the mean loss of the batches step *k* must use with
``torch.autograd.grad`` (no ``.grad`` involved), lets a fresh optimizer of the same
kind take the step, and compares with the student's parameters after step *k*.
Starting each step from the student's own parameters keeps rounding differences
from adding up, and the optimizer's memory (momentum, Adam's averages) is rebuilt
from correct gradients, so any loop that gives every step exactly its own batches'
gradient passes (any clearing method, the closure form ``optimizer.step(closure)``,
a generator of batches) and no other does. The parameters when the function returns must
be those the last step left: the caller gets the model the loop trained.
"""
from __future__ import annotations

import math

import torch
from torch import nn

from ..wire.scenarios.training_loop import (
    group,
    make_model,
    make_optimizer,
    n_steps,
    tensors_of,
)
from ..wire.tensors import as_data, close, from_data, load_, uniform
from ..wire.verdict import PASS, Verdict
from .seeds import generator

SHAPES = [(8, 3), (8,), (1, 8), (1,)]
TRUE_W = [[1.5], [-2.0], [0.5]]


def _draw(spec: dict, seed: int) -> dict:
    gen = generator(seed)
    params = [uniform(shape, 1 / math.sqrt(shape[-1] if len(shape) > 1 else (3 if i < 2 else 8)), gen)
              for i, shape in enumerate(SHAPES)]
    true_w = torch.tensor(TRUE_W)
    batches = []
    for _ in range(spec["n_batches"]):
        x = torch.randn(spec.get("batch_size", 8), 3, generator=gen)
        y = x @ true_w + 0.3 + 0.1 * torch.randn(spec.get("batch_size", 8), 1, generator=gen)
        batches.append([x.tolist(), y.tolist()])
    stale = [torch.randn(shape, generator=gen).tolist() for shape in SHAPES] if spec.get("stale", True) else None
    return {"spec": dict(spec), "params": as_data(params), "batches": batches, "stale": stale}


def _first_gradient_is_clear(data: dict) -> bool:
    """Adam's first step moves each parameter by ±lr whatever the size of its gradient,
    so a gradient component within rounding of zero could flip the step of a correct
    loop. Scenarios with such a component are drawn again."""
    model = make_model()
    load_(model.parameters(), [torch.tensor(p) for p in data["params"]])
    x, y = (torch.tensor(t) for t in data["batches"][0])
    grads = torch.autograd.grad(nn.functional.mse_loss(model(x), y), list(model.parameters()))
    return all(bool((g.abs() >= 1e-3 * g.pow(2).mean().sqrt()).all()) for g in grads)


def scenario(spec: dict, seed: int) -> dict:
    """The data a loop runs on: parameters, batches and stale gradients drawn from ``seed``."""
    for attempt in range(50):
        data = _draw(spec, seed + attempt)
        if spec["optimizer"] != "adam" or _first_gradient_is_clear(data):
            return data
    return data


# -- the check ----------------------------------------------------------------------------
def _prefer(diagnosis: Verdict, mistake: str, key: str, **fields) -> Verdict:
    """A failure: the kernel's own diagnosis when it found one (it names the line and
    the batches), otherwise what the replay itself established."""
    return diagnosis if not diagnosis.ok else Verdict.fail(mistake, key, **fields)


def replay(data: dict, steps: list):
    """Check every reported step. Returns (first wrong step or None, largest difference,
    the loss of each step's batches before it)."""
    spec = data["spec"]
    params, batches, _ = tensors_of(data)
    model = make_model()
    load_(model.parameters(), params)
    optimizer = make_optimizer(spec, model.parameters())
    loss_fn = nn.MSELoss()
    before, losses = params, []
    for k, after in enumerate(steps):
        load_(model.parameters(), before)
        loss = torch.stack([loss_fn(model(batches[b][0]), batches[b][1]) for b in group(spec, k)]).mean()
        losses.append(loss.item())
        for p, g in zip(model.parameters(), torch.autograd.grad(loss, list(model.parameters()))):
            p.grad = g
        optimizer.step()
        expected = [p.detach() for p in model.parameters()]
        if not all(close(e, a) for e, a in zip(expected, after)):
            return k, max(float((e - a).abs().max()) for e, a in zip(expected, after)), losses
        before = after
    return None, 0.0, losses


def _steps_of(data: dict, observation: dict) -> list | None:
    reported = observation.get("steps")
    if not isinstance(reported, list):
        return None
    steps = []
    for step in reported:
        if not isinstance(step, list) or len(step) != len(SHAPES):
            return None
        tensors = [from_data(values, torch.empty(shape)) for values, shape in zip(step, SHAPES)]
        if any(t is None for t in tensors):
            return None
        steps.append(tensors)
    return steps


def _losses_verdict(result, expected: list, diagnosis: Verdict) -> Verdict:
    if not isinstance(result, list) or len(result) != len(expected):
        return _prefer(diagnosis, "losses", "judge.losses")
    for value, want in zip(result, expected):
        if type(value) is not float or not abs(value - want) <= 1e-4 * max(1.0, abs(want)):
            return _prefer(diagnosis, "losses", "judge.losses")
    return PASS


def verify(data: dict, observation: dict, check_losses: bool) -> Verdict:
    """The verdict on a loop that ran on ``data``, from what the kernel ``observation`` says."""
    from ..wire.codec import decode

    diagnosis = Verdict.reported_diagnosis(observation.get("diagnosis", {"ok": True}))
    steps = _steps_of(data, observation)
    if steps is None:
        return Verdict.fail("malformed", "judge.malformed")
    expected = n_steps(data["spec"])
    if len(steps) != expected:
        return _prefer(diagnosis, "step_count", "judge.step_count", got=len(steps), count=len(steps),
                       expected=expected)
    wrong, diff, losses = replay(data, steps)
    if wrong is not None:
        return _prefer(diagnosis, "trajectory", "judge.trajectory", step=wrong + 1, diff=diff,
                       count=len(group(data["spec"], wrong)))
    final = _steps_of(data, {"steps": [observation.get("final")]})
    if final is None:
        return Verdict.fail("malformed", "judge.malformed")
    if not all(close(a, b) for a, b in zip(final[0], steps[-1])):  # a saved state restored, or more
        return _prefer(diagnosis, "changed_after_loop", "judge.changed_after_loop")
    if check_losses:
        verdict = _losses_verdict(decode(observation.get("losses")), losses, diagnosis)
        if not verdict.ok:
            return verdict
    return PASS
