"""Lesson 4, exercise (c): ``evaluate(model, batches)``: accuracy in eval mode, without a
graph, with the model's train/eval mode put back.

The judge computes the accuracy in eval mode under ``no_grad`` (dropout in train mode
changes it). With batches of different sizes, the mean of the per-batch accuracies is not
the accuracy over all examples: such a scenario is drawn so that the two differ visibly,
and that mistake gets its own message. The modes each forward pass ran in, the tensors
saved for backward, the mode and grad mode left behind are observed in the kernel. The
visible cases start the model once in train mode and once in eval mode: a function that
ends with a plain ``model.train()`` (or ``model.eval()``) puts back only one of the two.
"""
from __future__ import annotations

import torch

from ...wire.codec import decode
from ...wire.scenarios.models import state_as_data
from .scenario import build, make_classifier
from ...wire.verdict import PASS, Verdict
from ...judges.seeds import generator

CASES = {"visible": [dict(seed=4, start="train", sizes=[20, 5, 15]), dict(seed=7, start="eval", sizes=[8, 24])],
         "hidden": [dict(seed=5, start="eval", sizes=[16, 16]), dict(seed=6, start="train", sizes=[30, 5, 12])]}


def scenario(spec: dict, seed: int) -> dict:
    gen = generator(seed)
    model = make_classifier()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
    data = {"spec": dict(spec), "state": state_as_data(model)}
    for _ in range(_DRAWS):
        data["batches"] = [[torch.randn(n, 5, generator=gen).tolist(),
                            torch.randint(0, 3, (n,), generator=gen).tolist()] for n in spec["sizes"]]
        if len(set(spec["sizes"])) == 1 or \
                abs(mean_of_batch_accuracies(data) - reference_accuracy(data)) > _VISIBLE_GAP:
            break
    return data


_DRAWS = 50  # batches of different sizes are drawn again until averaging them is visibly wrong
_VISIBLE_GAP = 0.02


def _counts(data: dict) -> list[tuple[int, int]]:
    """(correct, examples) of each batch, in eval mode."""
    model, batches = build(data)
    model.eval()
    with torch.no_grad():
        return [(int((model(x).argmax(dim=1) == y).sum()), len(y)) for x, y in batches]


def reference_accuracy(data: dict) -> float:
    counts = _counts(data)
    return sum(c for c, _ in counts) / sum(n for _, n in counts)


def mean_of_batch_accuracies(data: dict) -> float:
    """The usual mistake: every batch's accuracy counted alike, whatever its size."""
    counts = _counts(data)
    return sum(c / n for c, n in counts) / len(counts)


def _mode(training: bool) -> str:
    return "train()" if training else "eval()"


def verify(data: dict, observation: dict) -> Verdict:
    if observation.get("grad_mode_after") is not True:
        return Verdict.fail("grad_mode_left_off", "inference.grad_mode_left_off")
    if any(observation.get("modes_seen") or []):
        return Verdict.fail("no_eval", "inference.no_eval")
    saved = int(observation.get("saved_tensors") or 0)
    if saved:
        return Verdict.fail("eval_graph", "inference.eval_graph", tensors=saved)
    started_training = data["spec"]["start"] == "train"
    if observation.get("training_after") is not started_training:
        return Verdict.fail("mode_not_restored", "inference.mode_not_restored", before=_mode(started_training),
                            after=_mode(not started_training))
    submodules = observation.get("submodules_after")
    if not isinstance(submodules, dict):
        return Verdict.fail("malformed", "judge.malformed")
    stayed = sorted((not any(kind in str(about[1:]) for kind in ("Dropout", "Norm")), str(n))
                    for n, about in submodules.items()
                    if not isinstance(about, list) or about[:1] != [started_training])
    stayed = [n for _, n in stayed]  # dropout and batch norm, whose mode matters, named first
    if stayed:  # model.training = was sets the flag of the model alone
        return Verdict.fail("submodules_not_restored", "inference.submodules_not_restored",
                            before=_mode(started_training), after=_mode(not started_training),
                            name=f"model.{stayed[0]}")
    got = decode(observation.get("accuracy"))
    if isinstance(got, torch.Tensor):
        return Verdict.fail("accuracy_tensor", "inference.accuracy_tensor")
    if type(got) is not float:
        return Verdict.fail("accuracy_type", "inference.accuracy_type",
                            got=getattr(got, "type_name", type(got).__name__))
    expected = reference_accuracy(data)
    if not abs(got - expected) <= 1e-6:  # NaN is never close
        if abs(got - 100 * expected) < 1e-4:
            return Verdict.fail("percent", "inference.percent")
        if abs(got - mean_of_batch_accuracies(data)) < 1e-6:
            return Verdict.fail("mean_of_batches", "inference.mean_of_batches", got=got, expected=expected)
        return Verdict.fail("wrong_accuracy", "inference.wrong_accuracy", got=got, expected=expected)
    return PASS
