"""Lesson 4 judges: inference without a graph, a manual SGD step, and an evaluation loop.

What counts is what happens at run time: how many tensors autograd saved for backward
while the student's code ran (``saved_tensors_hooks``), the grad mode and the
model's train/eval mode before and after, and what happened to the parameters.
"""
from __future__ import annotations

import contextlib

import torch
from torch import nn

from . import running
from .judge import Verdict


@contextlib.contextmanager
def counting_saved():
    """Count tensors saved for backward inside the block."""
    count = {"tensors": 0}

    def pack(t):
        count["tensors"] += 1
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        yield count


def _call(student, name: str, *args):
    """Run the student's function; also report the grad mode it left, then restore it."""
    was_enabled = torch.is_grad_enabled()
    try:
        result, failed = running.call(student, name, *args)
        return result, failed, torch.is_grad_enabled() if failed is None else was_enabled
    finally:
        torch.set_grad_enabled(was_enabled)


# -- (a) predict(model, x) -------------------------------------------------------------------
def make_model(kind: str) -> nn.Module:
    torch.manual_seed(1)
    if kind == "mlp":
        return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    model = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 3))
    model(torch.randn(64, 6))  # give batch norm running statistics
    return model.eval()


PREDICT_CASES = {"visible": ["mlp"], "hidden": ["batchnorm-eval"]}


def _judge_predict(predict, kind: str) -> Verdict:
    model = make_model(kind)
    for p in model.parameters():
        p.grad = torch.full_like(p, 0.5)
    before = [(p.detach().clone(), p.grad.clone()) for p in model.parameters()]
    x = torch.randn(8, 6, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        expected = model(x)
    with counting_saved() as saved:
        out, failed, grad_mode_after = _call(predict, "predict", model, x)
    if failed:
        return failed
    if not grad_mode_after:
        return Verdict.fail("grad_mode_left_off", "inference.grad_mode_left_off")
    if not isinstance(out, torch.Tensor):
        return Verdict.fail("not_tensor", "inference.not_tensor", got=type(out).__name__)
    if saved["tensors"] and not out.requires_grad:
        return Verdict.fail("detached_after", "inference.detached_after", tensors=saved["tensors"])
    if saved["tensors"] or out.requires_grad:
        return Verdict.fail("graph_recorded", "inference.graph_recorded", tensors=saved["tensors"])
    for (value, grad), p in zip(before, model.parameters()):
        if not torch.equal(value, p.detach()) or p.grad is None or not torch.equal(grad, p.grad):
            return Verdict.fail("touched_params", "inference.touched_params")
    if out.shape != expected.shape or not torch.allclose(out, expected, atol=1e-6):
        return Verdict.fail("wrong_output", "inference.wrong_output")
    return Verdict(True)


def judge_predict(predict, cases: str = "visible") -> Verdict:
    return running.each_case(predict, "predict", PREDICT_CASES, cases, _judge_predict)


# -- (b) sgd_step(params, lr) ----------------------------------------------------------------
SGD_CASES = {"visible": [0.1], "hidden": [0.03]}


def _judge_sgd_step(sgd_step, lr: float) -> Verdict:
    gen = torch.Generator().manual_seed(3)
    params = [torch.randn(2, 3, generator=gen).requires_grad_(),
              torch.randn(2, generator=gen).requires_grad_()]
    for p in params:
        p.grad = torch.randn(p.shape, generator=gen)
    expected = [(p - lr * p.grad).detach() for p in params]
    versions = [p._version for p in params]
    objects = list(params)
    _, failed, grad_mode_after = _call(sgd_step, "sgd_step", params, lr)
    if failed:
        return failed
    if not grad_mode_after:
        return Verdict.fail("grad_mode_left_off", "inference.grad_mode_left_off")
    if any(a is not b for a, b in zip(params, objects)):
        return Verdict.fail("list_replaced", "inference.list_replaced")
    for p, want, version in zip(params, expected, versions):
        if not (p.is_leaf and p.requires_grad):
            return Verdict.fail("not_leaf", "inference.not_leaf")
        if torch.allclose(p.detach(), want, atol=1e-6):
            if p._version == version:
                return Verdict.fail("used_data", "inference.used_data")
            continue
        if torch.allclose(p.detach(), want + lr * (p.grad if p.grad is not None else 0), atol=1e-6):
            return Verdict.fail("unchanged", "inference.unchanged")
        return Verdict.fail("wrong_update", "inference.wrong_update", lr=lr)
    return Verdict(True)


def judge_sgd_step(sgd_step, cases: str = "visible") -> Verdict:
    return running.each_case(sgd_step, "sgd_step", SGD_CASES, cases, _judge_sgd_step)


# -- (c) evaluate(model, batches) -------------------------------------------------------------
def make_classifier() -> nn.Module:
    torch.manual_seed(4)
    return nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Dropout(0.5), nn.Linear(32, 3))


def make_eval_batches(sizes: list) -> list:
    gen = torch.Generator().manual_seed(5)
    return [(torch.randn(n, 5, generator=gen), torch.randint(0, 3, (n,), generator=gen)) for n in sizes]


EVAL_CASES = {"visible": [("train", [16, 16, 16])],
              "hidden": [("eval", [16, 16]), ("train", [30, 5, 12])]}


def reference_accuracy(model: nn.Module, batches: list) -> float:
    was_training = model.training
    model.eval()
    with torch.no_grad():
        correct = sum(int((model(x).argmax(dim=1) == y).sum()) for x, y in batches)
    model.train(was_training)
    return correct / sum(len(y) for _, y in batches)


def _judge_evaluate(evaluate, case) -> Verdict:
    start_mode, sizes = case
    model = make_classifier().train(start_mode == "train")
    batches = make_eval_batches(sizes)
    expected = reference_accuracy(model, batches)
    modes_seen = []
    handle = model.register_forward_pre_hook(lambda m, args: modes_seen.append(m.training))
    try:
        with counting_saved() as saved:
            got, failed, grad_mode_after = _call(evaluate, "evaluate", model, batches)
    finally:
        handle.remove()
    if failed:
        return failed
    if not grad_mode_after:
        return Verdict.fail("grad_mode_left_off", "inference.grad_mode_left_off")
    if any(modes_seen):
        return Verdict.fail("no_eval", "inference.no_eval")
    if saved["tensors"]:
        return Verdict.fail("eval_graph", "inference.eval_graph", tensors=saved["tensors"])
    if model.training != (start_mode == "train"):
        return Verdict.fail("mode_not_restored", "inference.mode_not_restored",
                            before="train()" if start_mode == "train" else "eval()",
                            after="train()" if model.training else "eval()")
    if isinstance(got, torch.Tensor):
        return Verdict.fail("accuracy_tensor", "inference.accuracy_tensor")
    if not isinstance(got, float):
        return Verdict.fail("accuracy_type", "inference.accuracy_type", got=type(got).__name__)
    if abs(got - expected) > 1e-6:
        if abs(got - 100 * expected) < 1e-4:
            return Verdict.fail("percent", "inference.percent")
        return Verdict.fail("wrong_accuracy", "inference.wrong_accuracy", got=got, expected=expected)
    return Verdict(True)


def judge_evaluate(evaluate, cases: str = "visible") -> Verdict:
    return running.each_case(evaluate, "evaluate", EVAL_CASES, cases, _judge_evaluate)
