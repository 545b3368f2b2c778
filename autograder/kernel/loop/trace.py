"""Record what a student's training loop does to the gradients, as it runs.

The tracer hooks the grader's own model and optimizer:

* a forward hook notes which batch each forward pass saw, and a hook on its output
  notes when a backward pass goes through it;
* per-parameter hooks see every gradient that flows in (``register_hook``) and every
  write to ``.grad`` (``register_post_accumulate_grad_hook``);
* optimizer step hooks snapshot ``.grad`` and the parameters at each ``step()``, and
  the parameters after it (what the judge checks).

Clearing has no hook, so each parameter keeps a *ledger*: the sum of contributions
(stale gradient, backward pass #n, …) the tracer believes ``.grad`` holds. Whenever
``.grad`` is looked at, the ledger is reconciled with the real tensor: ``None`` or
zeros mean it was cleared, a multiple means it was rescaled, anything else makes it
opaque. At each step the ledger says which batches' gradients the step used.

``step(closure)`` (the form LBFGS needs) runs the closure, and with it the clearing,
forward and backward passes, *inside* the step: such a step is recorded when it
ends, with the gradients the update used and the parameters from before the closure.
"""
from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass, field

import torch
from torch.optim.optimizer import register_optimizer_step_pre_hook

from .. import locations
from ..locations import Location

STALE = "stale"
UNKNOWN = "?"


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return torch.allclose(a, b, rtol=1e-4, atol=1e-6)


def is_zero(t: torch.Tensor | None) -> bool:
    return t is None or t.numel() == 0 or not bool(t.abs().max() > 0)


@dataclass
class Forward:
    batch: int | None


@dataclass
class Backward:
    index: int
    forwards: tuple[int, ...]
    location: Location | None
    params_seen: set = field(default_factory=set)


@dataclass
class Clear:
    location: Location | None
    after_backward: int  # number of backward passes before it


@dataclass
class Step:
    index: int
    location: Location | None
    grads: list  # .grad of each parameter when the update ran (clone or None)
    params: list  # parameters just before the update
    ledgers: list  # Counter of contributions per parameter
    backwards_before: int
    after: list = field(default_factory=list)  # parameters just after the update


class Ledger:
    """What one parameter's ``.grad`` is made of: contribution → coefficient.

    ``value`` is what the ledger believes ``.grad`` holds. The tensor object it last saw
    and that tensor's version counter (bumped by every in-place change) let
    ``reconcile`` skip the value comparison when ``.grad`` has not been touched.
    """

    def __init__(self, stale: torch.Tensor | None):
        self.terms: Counter = Counter()
        self.value: torch.Tensor | None = None
        self._seen: tuple | None = None
        if stale is not None:
            self.terms[STALE] = 1.0
            self._remember(stale)

    def _remember(self, grad: torch.Tensor) -> None:
        self.value = grad.detach().clone()
        self._seen = (grad, grad._version)

    def _untouched(self, actual: torch.Tensor) -> bool:
        return self._seen is not None and actual is self._seen[0] and actual._version == self._seen[1]

    def reconcile(self, actual: torch.Tensor | None) -> None:
        """Bring the ledger in line with what ``.grad`` really holds now."""
        if actual is not None and self._untouched(actual):
            return
        if actual is None or is_zero(actual):
            self.terms.clear()
            self.value, self._seen = None, None
            return
        if self.value is not None and close(actual, self.value):
            self._seen = (actual, actual._version)
            return
        if self.value is not None:
            factor = float((actual * self.value).sum() / (self.value * self.value).sum())
            if close(actual, factor * self.value):
                for key in self.terms:
                    self.terms[key] *= factor
                self._remember(actual)
                return
        self.terms = Counter({UNKNOWN: 1.0})
        self._remember(actual)

    def add(self, backward: int, grad_now: torch.Tensor) -> None:
        self.terms[backward] += 1.0
        self._remember(grad_now)


@dataclass
class Trace:
    """Everything the tracer saw during one call of the student's function."""

    forwards: list = field(default_factory=list)
    backwards: list = field(default_factory=list)
    clears: list = field(default_factory=list)
    steps: list = field(default_factory=list)
    foreign_steps: list = field(default_factory=list)
    result: object = None
    final: list = field(default_factory=list)  # the parameters when the function returned
    error: BaseException | None = None
    error_location: Location | None = None

    def batches_of(self, backward_index: int) -> list:
        """The batches whose forward passes a backward pass went through."""
        forwards = self.backwards[backward_index].forwards
        if not forwards:
            return [UNKNOWN]
        return [self.forwards[f].batch if self.forwards[f].batch is not None else UNKNOWN
                for f in forwards]


def _has_closure(args: tuple, kwargs: dict) -> bool:
    return kwargs.get("closure") is not None or bool(args and args[0] is not None)


class LoopTracer:
    """Hooks a model and its optimizer; ``run`` calls the student's function under them."""

    def __init__(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer, batch_inputs: list):
        self.model = model
        self.optimizer = optimizer
        self.params = list(model.parameters())
        self.batch_inputs = batch_inputs
        self.trace = Trace()
        self.ledgers = [Ledger(p.grad) for p in self.params]
        self._pending_forwards: list[int] = []
        self._current: Backward | None = None
        self._handles: list = []
        self._opened: list = []  # (location, params before) of steps still running their closure

    # -- hooks ------------------------------------------------------------------
    def _which_batch(self, x) -> int | None:
        for i, candidate in enumerate(self.batch_inputs):
            if x is candidate:
                return i
        for i, candidate in enumerate(self.batch_inputs):
            if isinstance(x, torch.Tensor) and x.shape == candidate.shape and torch.equal(x, candidate):
                return i
        return None

    def _on_forward(self, module, inputs, output):
        index = len(self.trace.forwards)
        self.trace.forwards.append(Forward(self._which_batch(inputs[0]) if inputs else None))
        if isinstance(output, torch.Tensor) and output.requires_grad:
            output.register_hook(lambda grad: self._pending_forwards.append(index))

    def _backward_for(self, param_index: int) -> Backward:
        """The backward pass a gradient arriving at a parameter belongs to."""
        current = self._current
        if self._pending_forwards or current is None or param_index in current.params_seen:
            current = Backward(len(self.trace.backwards), tuple(self._pending_forwards),
                               locations.current())
            self._pending_forwards.clear()
            self.trace.backwards.append(current)
            self._current = current
        return current

    def _on_grad_arriving(self, i: int):
        def hook(grad):
            self.ledgers[i].reconcile(self.params[i].grad)
        return hook

    def _on_grad_written(self, i: int):
        def hook(param):
            backward = self._backward_for(i)
            backward.params_seen.add(i)
            self.ledgers[i].add(backward.index, param.grad)
        return hook

    def _snapshot(self, location, params_before) -> Step:
        for ledger, p in zip(self.ledgers, self.params):
            ledger.reconcile(p.grad)
        return Step(
            index=len(self.trace.steps),
            location=location,
            grads=[None if p.grad is None else p.grad.detach().clone() for p in self.params],
            params=params_before,
            ledgers=[Counter(ledger.terms) for ledger in self.ledgers],
            backwards_before=len(self.trace.backwards),
        )

    def _on_step(self, optimizer, args, kwargs):
        params_before = [p.detach().clone() for p in self.params]
        if _has_closure(args, kwargs):  # the gradients are made inside the step: record it at its end
            self._opened.append((locations.current(), params_before))
            self.trace.steps.append(None)
        else:
            self.trace.steps.append(self._snapshot(locations.current(), params_before))

    def _after_step(self, optimizer, args, kwargs):
        k = len(self.trace.steps) - 1
        if self.trace.steps[k] is None:
            location, params_before = self._opened.pop()
            self.trace.steps[k] = self._snapshot(location, params_before)
            self.trace.steps[k].index = k
        self.trace.steps[k].after = [p.detach().clone() for p in self.params]

    def _on_any_step(self, optimizer, args, kwargs):
        if optimizer is not self.optimizer:
            self.trace.foreign_steps.append(locations.current())

    def _wrap_clear(self, owner):
        original = owner.zero_grad

        def zero_grad(*args, **kwargs):
            self.trace.clears.append(Clear(locations.current(), len(self.trace.backwards)))
            return original(*args, **kwargs)

        owner.zero_grad = zero_grad
        return owner

    # -- running ----------------------------------------------------------------
    def install(self) -> None:
        add = self._handles.append
        add(self.model.register_forward_hook(self._on_forward))
        for i, p in enumerate(self.params):
            add(p.register_hook(self._on_grad_arriving(i)))
            add(p.register_post_accumulate_grad_hook(self._on_grad_written(i)))
        add(self.optimizer.register_step_pre_hook(self._on_step))
        add(self.optimizer.register_step_post_hook(self._after_step))
        add(register_optimizer_step_pre_hook(self._on_any_step))
        self._wrap_clear(self.optimizer)
        self._wrap_clear(self.model)

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        for owner in (self.optimizer, self.model):
            owner.__dict__.pop("zero_grad", None)

    def run(self, fn, *args) -> Trace:
        """Call ``fn(*args)`` under the hooks; errors and warnings are recorded, not raised."""
        self.install()
        try:
            with warnings.catch_warnings(record=True):
                warnings.simplefilter("always")
                try:
                    self.trace.result = fn(*args)
                except Exception as exc:  # the student's error is data for the diagnosis
                    self.trace.error = exc
                    self.trace.error_location = locations.of_exception(exc)
        finally:
            self.remove()
        # a step whose closure raised never ended
        self.trace.steps = [step for step in self.trace.steps if step is not None]
        self.trace.final = [p.detach().clone() for p in self.params]
        return self.trace
