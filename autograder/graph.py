"""Lesson 1 judges: predicting requires_grad / is_leaf / grad_fn, and freezing a model.

Predictions are compared with what PyTorch reports for the same code. Freezing is
judged by what actually receives gradients after a forward and backward pass.
"""
from __future__ import annotations

import torch
from torch import nn

from . import running
from .judge import Verdict

# The code of exercise (a), run here to get the true answers.
PREDICT_CODE = """
x = torch.tensor([1.0, 2.0], requires_grad=True)
k = torch.tensor([3.0, 4.0])
y = x * k
z = y.sum()
d = z.detach()
"""
PARTS = {"visible": ["x", "k", "y"], "hidden": ["z", "d"]}


def true_properties() -> dict:
    names: dict = {"torch": torch}
    exec(PREDICT_CODE, names)
    out = {}
    for name in running.select(PARTS, "all"):
        t = names[name]
        out[name] = (t.requires_grad, t.is_leaf, type(t.grad_fn).__name__ if t.grad_fn else None)
    return out


def judge_properties(answers: dict, part: str = "visible") -> Verdict:
    truth = true_properties()
    names = running.select(PARTS, part)
    for name in names:
        if name not in answers:
            return Verdict.fail("missing", "graph.missing", name=name)
        got = answers[name]
        if not (isinstance(got, tuple) and len(got) == 3):
            return Verdict.fail("bad_format", "graph.format", name=name, got=repr(got))
        requires_grad, is_leaf, grad_fn = truth[name]
        if got[0] is not requires_grad:
            return Verdict.fail("requires_grad", f"graph.requires_grad_{requires_grad}".lower(),
                                name=name)
        if got[1] is not is_leaf:
            return Verdict.fail("is_leaf", f"graph.is_leaf_{is_leaf}".lower(), name=name)
        if got[2] != grad_fn:
            return Verdict.fail("grad_fn", "graph.grad_fn", name=name, got=repr(got[2]),
                                expected=repr(grad_fn))
    return Verdict(True)


# -- exercise (b): freeze the body, train the head -----------------------------------
class Net(nn.Module):
    def __init__(self, body: nn.Module, head: nn.Module):
        super().__init__()
        self.body, self.head = body, head

    def forward(self, x):
        return self.head(self.body(x))


def make_net(kind: str) -> Net:
    torch.manual_seed(0)
    if kind == "mlp":
        return Net(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU()),
                   nn.Linear(8, 2))
    return Net(nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Tanh()),
               nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2)))


FREEZE_CASES = {"visible": ["mlp"], "hidden": ["batchnorm"]}


def _judge_freeze(freeze_body, kind: str) -> Verdict:
    model = make_net(kind)
    before = {name: p for name, p in model.named_parameters()}
    _, failed = running.call(freeze_body, "freeze_body", model)
    if failed:
        return failed
    after = dict(model.named_parameters())
    if set(after) != set(before) or any(after[n] is not before[n] for n in before):
        return Verdict.fail("replaced", "graph.replaced")
    loss = model(torch.randn(16, 4)).pow(2).mean()
    if loss.requires_grad:
        loss.backward()
    for name, p in after.items():
        in_body = name.startswith("body.")
        if in_body and p.grad is not None:
            return Verdict.fail("body_trains", "graph.body_trains", name=f"model.{name}")
        if not in_body and p.grad is None:
            return Verdict.fail("head_frozen", "graph.head_frozen", name=f"model.{name}")
    return Verdict(True)


def judge_freeze(freeze_body, cases: str = "visible") -> Verdict:
    return running.each_case(freeze_body, "freeze_body", FREEZE_CASES, cases, _judge_freeze)
