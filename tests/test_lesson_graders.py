"""The graders of lessons 1, 2 and 4 against their catalogues (tests/catalogue_lessons.py),
and the prediction exercise of lesson 1 and the gradients exercise 2(d) expects against PyTorch
itself."""
from __future__ import annotations

import warnings

import pytest
import torch
from catalogue_lessons import LESSON1, LESSON2, LESSON3, LESSON4
from judging import judge_function

from autograder import judges
from autograder.judges import variants
from autograder.exercises.graph_predictions import judge as graph_predictions
from autograder.exercises.value_backward import judge as value_backward
from autograder.wire.codec import roundtrip
from autograder.exercises import EXERCISES
from autograder.wire.spec import select

ENTRIES = LESSON1 + LESSON2 + LESSON3 + LESSON4


@pytest.mark.parametrize("lesson", [LESSON1, LESSON2, LESSON4, LESSON3], ids=["l1", "l2", "l4", "l3e"])
def test_each_catalogue_has_right_and_wrong_solutions(lesson):
    assert len(lesson) >= 10
    assert sum(e.mistake is None for e in lesson) >= 3
    assert sum(e.mistake is not None for e in lesson) >= 6


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e.function}:{e.name}")
def test_verdict_and_message(entry):
    fn = entry.load()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (visible, _), (hidden, _) = judge_function(entry.function, fn, "visible"), \
            judge_function(entry.function, fn, "hidden")
    assert torch.is_grad_enabled(), "a judge must leave grad mode as it found it"
    if entry.mistake is None:
        assert visible.ok, visible.message
        assert hidden.ok, hidden.message
        return
    if entry.cases == "hidden":
        assert visible.ok, f"the visible case should pass; got {visible.message}"
    verdict = visible if entry.cases == "visible" else hidden
    assert not verdict.ok, "a wrong solution passed"
    assert verdict.mistake == entry.mistake, verdict.message
    for word in entry.words:
        assert word in verdict.message, f"{word!r} missing from: {verdict.message}"


@pytest.mark.slow
@pytest.mark.parametrize("seed", [5, 55_555])
def test_secret_scenarios_give_the_same_verdicts(seed):
    for entry in ENTRIES:
        verdict, _ = judge_function(entry.function, entry.load(), "all", seed)
        assert verdict.ok is (entry.mistake is None), f"{entry.function}:{entry.name}: {verdict.message}"


def test_property_predictions_come_from_pytorch():
    truth = graph_predictions.true_properties()
    assert truth["y"] == (True, False, "MulBackward0")
    assert truth["d"] == (False, True, None)


PUBLISHED = variants.variant("l1_graph_predictions", None).shown()


@pytest.mark.parametrize("answers,part,ok,mistake", [
    ({"x": (True, True, None), "k": (False, True, None), "y": (True, False, "MulBackward0")},
     "visible", True, ""),
    ({"x": (True, True, None), "k": (True, True, None), "y": (True, False, "MulBackward0")},
     "visible", False, "requires_grad"),
    ({"x": (True, True, None), "k": (False, True, None), "y": (True, True, "MulBackward0")},
     "visible", False, "is_leaf"),
    ({"x": (True, True, None), "k": (False, True, None), "y": (True, False, "Mul")},
     "visible", False, "grad_fn"),
    ({"x": [True, True, None]}, "visible", False, "bad_format"),
    ({"z": (True, False, "SumBackward0"), "d": (False, True, None)}, "hidden", True, ""),
    ({"z": (True, False, "SumBackward0"), "d": (True, False, "SumBackward0")}, "hidden", False,
     "requires_grad"),
])
def test_property_predictions(answers, part, ok, mistake):
    """Judged on the published variant of the code (the one the solution answers)."""
    verdict = graph_predictions.verify_value(roundtrip(answers), part, variant=PUBLISHED)
    assert verdict.ok is ok, verdict.message
    assert verdict.mistake == mistake
    if part == "hidden":  # without the student's variant (their own kernel): the form only
        assert graph_predictions.verify_value(roundtrip(answers), part).ok


def test_property_predictions_follow_the_students_variant():
    """The same answers, judged on another student's code: their z and d differ."""
    answers = roundtrip({"z": (True, False, "SumBackward0"), "d": (False, True, None)})
    others = [variants.variant("l1_graph_predictions", seed).shown() for seed in range(30)]
    verdicts = [graph_predictions.verify_value(answers, "hidden", variant=shown) for shown in others]
    assert sum(not v.ok for v in verdicts) >= 15


def test_judges_restore_grad_mode_even_when_the_student_crashes():
    def predict(model, x):
        torch.set_grad_enabled(False)
        raise ValueError("boom")
    verdict, _ = judge_function("predict", predict)
    assert not verdict.ok and "ValueError" in verdict.message
    assert torch.is_grad_enabled()


def test_the_fit_line_check_leaves_no_optimizer_watch_behind():
    """The check watches every optimizer during the student's call (a global step hook, a
    wrapped Optimizer.zero_grad): after it, even when the student's code raised half-way, both
    are gone, and the student's own optimizers work as before."""
    from torch.optim import optimizer as optim_module

    original, hooks = torch.optim.Optimizer.zero_grad, dict(optim_module._global_optimizer_pre_hooks)

    def fit_line(w, b, xs, ys, lr, steps):
        torch.optim.SGD([w, b], lr=lr).zero_grad()
        raise ValueError("boom")

    verdict, _ = judge_function("fit_line", fit_line)
    assert verdict.mistake == "used_optimizer" and "SGD.zero_grad()" in verdict.message
    assert torch.optim.Optimizer.zero_grad is original
    assert dict(optim_module._global_optimizer_pre_hooks) == hooks
    p = torch.nn.Parameter(torch.ones(2))
    p.grad = torch.ones(2)
    torch.optim.SGD([p], lr=0.5).step()
    assert p.tolist() == [0.5, 0.5]


@pytest.mark.parametrize("case", select(value_backward.CASES, "all"), ids=lambda case: case["graph"])
def test_value_backward_reference_is_pytorchs(case):
    """The gradients the judge of exercise 2(d) expects are PyTorch's, on the same graphs."""
    for seed in (case["seed"], 17, 90_210):
        graph = value_backward.scenario(case, seed)["nodes"]
        tensors = []
        for _, op, inputs, value in graph:
            if op is None:
                tensors.append(torch.tensor(value, dtype=torch.float64, requires_grad=True))
            else:
                left, right = (tensors[i] for i in inputs)
                tensors.append(left + right if op == "+" else left * right)
                tensors[-1].retain_grad()
        tensors[-1].backward()
        assert value_backward.reference(graph) == pytest.approx([t.grad.item() for t in tensors], rel=1e-12)


FUNCTION_EXERCISES = [spec for spec in EXERCISES if spec.kind == "function"]


@pytest.mark.parametrize("spec", FUNCTION_EXERCISES, ids=[spec.name for spec in FUNCTION_EXERCISES])
@pytest.mark.parametrize("error", [{"ok": True}, {"ok": False, "mistake": "", "key": ""}, {"ok": "yes"}, []])
def test_a_kernel_that_reports_a_forged_error_gets_a_failure(spec, error):
    """The observation's "error" is the kernel's to write: whatever it claims, it is a failure
    (a kernel once sent {"ok": true} as its error and the judge passed the check)."""
    module = judges.module(spec)
    case = select(module.CASES, "visible")[0]
    verdict = judges.verdict(module, module.scenario(case, case["seed"]), {"error": error})
    assert not verdict.ok and verdict.key, verdict
