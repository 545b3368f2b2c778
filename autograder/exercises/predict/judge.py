"""Lesson 4, exercise (a): ``predict(model, x)``: the model's output, with no graph recorded.

The judge checks the output's values against the model's own output computed under
``no_grad`` (a model switched to ``train()`` gives other values through batch norm).
How many tensors autograd saved for backward during the call, the grad mode it left
behind, and whether the parameters or their gradients were touched are observed in
the kernel (``saved_tensors_hooks``, ``torch.is_grad_enabled``): a graph that was
recorded and thrown away leaves nothing in the returned values to prove it.

So is the train/eval mode of the model and of each submodule after the call: predict
must leave it as it found it (lesson 4, section 5). A ``model.eval()`` left behind
changes nothing predict returns, so only the mode itself can show it; the visible cases
start one model in train mode and one in eval mode, so that switching either way, and
``model.train()`` at the end, show in the student's own check.
"""
from __future__ import annotations

import torch

from ...wire.codec import decode
from ...wire.scenarios.models import state_as_data
from .scenario import build, make_model
from ...wire.verdict import PASS, Verdict
from ...judges.seeds import generator

CASES = {"visible": [dict(seed=0, kind="mlp"), dict(seed=2, kind="dropout-eval")],
         "hidden": [dict(seed=1, kind="batchnorm-eval")]}


def scenario(spec: dict, seed: int) -> dict:
    gen = generator(seed)
    model = make_model(spec["kind"])
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.4)
    if spec["kind"].startswith("batchnorm"):
        with torch.random.fork_rng(devices=[]):
            model(torch.randn(64, 6, generator=gen))  # give batch norm running statistics
    return {"spec": dict(spec), "state": state_as_data(model), "x": torch.randn(8, 6, generator=gen).tolist()}


def verify(data: dict, observation: dict) -> Verdict:
    if observation.get("grad_mode_after") is not True:
        return Verdict.fail("grad_mode_left_off", "inference.grad_mode_left_off")
    out = decode(observation.get("output"))
    if not isinstance(out, torch.Tensor):
        return Verdict.fail("not_tensor", "inference.not_tensor", got=getattr(out, "type_name", type(out).__name__))
    saved = int(observation.get("saved_tensors") or 0)
    if saved and not out.requires_grad:
        return Verdict.fail("detached_after", "inference.detached_after", tensors=saved)
    if saved or out.requires_grad:
        return Verdict.fail("graph_recorded", "inference.graph_recorded", tensors=saved)
    if observation.get("touched_params") is not False:
        return Verdict.fail("touched_params", "inference.touched_params")
    frozen = observation.get("requires_grad_off")
    if frozen is None or frozen:  # the next training step would learn nothing
        return Verdict.fail("requires_grad_off", "inference.requires_grad_off",
                            name=", ".join(map(str, frozen or []))[:200])
    switched = _switched(observation.get("modes"))
    if switched:
        return switched
    model, x = build(data)
    with torch.no_grad():
        expected = model(x)
    if out.shape != expected.shape or not torch.allclose(out.to(expected.dtype), expected, atol=1e-5):
        return Verdict.fail("wrong_output", "inference.wrong_output")
    return PASS


def _mode(training: bool) -> str:
    return "train()" if training else "eval()"


def _switched(modes) -> Verdict | None:
    """A failure naming the first module (the model itself first) whose train/eval mode the
    call changed: ``modes`` is ``{name: [training before, training after]}``."""
    if not isinstance(modes, dict) or not modes or \
            not all(isinstance(v, list) and len(v) == 2 and all(type(b) is bool for b in v) for v in modes.values()):
        return Verdict.fail("malformed", "judge.malformed")
    changed = sorted(str(n) for n, (before, after) in modes.items() if before is not after)
    if not changed:
        return None
    before, after = modes[changed[0]]
    return Verdict.fail("mode_switched", "inference.mode_switched", before=_mode(before), after=_mode(after),
                        module=f"model.{changed[0]}" if changed[0] else "model")
