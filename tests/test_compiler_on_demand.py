"""lessons.compiler_on_demand: a lesson kernel's optimizers no longer import torch's compiler,
and compute exactly what they computed with it, eagerly and under ``torch.compile``.

Each case is a fresh Python process that starts as a lesson's set-up cell does (``import
torch``, then ``lessons``) and makes every optimizer of ``torch.optim``: the reference process
gets a ``compiler_on_demand`` that does not recognise torch's code (as with another torch
version), so it has torch's own behaviour and must change nothing.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow  # (processes that import torch)

SCRIPT = textwrap.dedent('''
    import json, sys
    import torch
    if sys.argv[1] == "other torch":  # the module loaded before the package that installs it
        import importlib.util, os
        folder = os.path.dirname(importlib.util.find_spec("lessons").origin)  # (not imported)
        spec = importlib.util.spec_from_file_location("lessons.compiler_on_demand",
                                                      os.path.join(folder, "compiler_on_demand.py"))
        shim = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(shim)
        shim.USE_GRAD_NAMES = ()  # what torch's step wrapper would use in another version
        sys.modules["lessons.compiler_on_demand"] = shim
    import lessons  # (as every lesson's set-up cell, after torch)

    found = {"step replaced": getattr(torch.optim.SGD.step, "until_compiled", False), "params": {}}
    torch.manual_seed(0)
    for name in ["SGD", "Adam", "AdamW", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop", "Rprop", "Adagrad",
                 "Adadelta"]:
        w = torch.nn.Parameter(torch.randn(5))
        optimizer = getattr(torch.optim, name)([w], lr=0.05)
        for _ in range(3):
            optimizer.zero_grad()
            (w ** 2 * torch.arange(5.0)).sum().backward()
            optimizer.step()
        optimizer.load_state_dict(optimizer.state_dict())
        optimizer.add_param_group({"params": [torch.nn.Parameter(torch.ones(2))]})
        optimizer.zero_grad(set_to_none=False)
        found["params"][name] = w.detach().tolist()
    found["grad mode kept"] = torch.is_grad_enabled()
    found["compiler imported"] = "torch._dynamo" in sys.modules

    model = torch.nn.Linear(3, 1)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    @torch.compile(backend="eager")
    def train_step():
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()

    for _ in range(3):
        train_step()
    found["compiled"] = [p.detach().tolist() for p in model.parameters()]
    found["compiled frames"] = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    print(json.dumps(found))
''')


def run(case: str) -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT, case], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def results() -> dict:
    return {case: run(case) for case in ("lesson", "other torch")}


def test_a_lesson_kernels_optimizers_do_not_import_the_compiler(results):
    assert results["lesson"]["compiler imported"] is False and results["lesson"]["step replaced"] is True
    # torch's own behaviour, unchanged
    assert results["other torch"]["compiler imported"] is True and results["other torch"]["step replaced"] is False


def test_every_optimizer_computes_exactly_what_it_did(results):
    assert results["lesson"]["params"] == results["other torch"]["params"]
    assert results["lesson"]["grad mode kept"] is True


def test_under_torch_compile_it_is_torchs_own_behaviour(results):
    lesson, reference = results["lesson"], results["other torch"]
    assert lesson["compiled"] == reference["compiled"]
    assert lesson["compiled frames"] == reference["compiled frames"] > 0
