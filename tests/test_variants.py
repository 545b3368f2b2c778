"""Every variant of every generated Quick Check is answerable: its code runs, and exactly one
option is right, checked by running the code and testing each option's claim against what
happened (not against the family's own idea of the key)."""
from __future__ import annotations

import ast
import json
import re

import pytest
import torch
from torch import nn

from autograder.judges import variants
from autograder.judges.variants import LETTERS
from autograder.instructor.course import source_notebook
from helpers import ROOT, read, solutions

SEEDS = range(300)


class Trace:
    """What the code did: each backward pass's contribution to the watched gradients, and the
    gradients and values every ``optimizer.step()`` saw."""

    def __init__(self, namespace: dict):
        self.namespace = namespace
        self.contributions, self.steps = [], []
        self.raised_at = self.error = None

    def watched(self) -> list:
        ns = self.namespace
        if "model" in ns:
            return list(ns["model"].parameters())
        return [ns[name] for name in ("w", "p") if isinstance(ns.get(name), torch.Tensor) and ns[name].is_leaf]

    def run(self, code: str, monkeypatch) -> None:
        backward, step = torch.Tensor.backward, torch.optim.SGD.step
        trace = self

        def traced_backward(tensor, *args, **kwargs):
            before = [None if p.grad is None else p.grad.clone() for p in trace.watched()]
            backward(tensor, *args, **kwargs)
            after = [torch.zeros_like(p) if p.grad is None else p.grad.clone() for p in trace.watched()]
            trace.contributions.append([a - (0 if b is None else b) for a, b in zip(after, before)])

        def traced_step(optimizer, *args, **kwargs):
            params = [p for group in optimizer.param_groups for p in group["params"]]
            grads = [None if p.grad is None else p.grad.clone() for p in params]
            out = step(optimizer, *args, **kwargs)
            trace.steps.append((grads, [p.detach().clone() for p in params]))
            return out

        monkeypatch.setattr(torch.Tensor, "backward", traced_backward)
        monkeypatch.setattr(torch.optim.SGD, "step", traced_step)
        for node in ast.parse(code).body:  # statement by statement: which one raises is a question
            try:
                exec(compile(ast.Module([node], []), "<variant>", "exec"), self.namespace)
            except Exception as error:  # noqa: BLE001
                self.raised_at, self.error = ast.get_source_segment(code, node).splitlines()[0], error
                return


def _same(grads, claim) -> bool:
    if claim is None or any(g is None for g in grads):
        return claim is None and all(g is None for g in grads)
    return all(torch.allclose(g, c, atol=1e-6) for g, c in zip(grads, claim))


def _total(contributions):
    return [sum(parts) for parts in zip(*contributions)]


def claims_l3_q1(v, trace) -> dict:
    seen = trace.steps[1][0]  # the second step's gradients
    first, second = trace.contributions[0], trace.contributions[1]
    return {"current": _same(seen, second), "previous": _same(seen, first),
            "sum": _same(seen, _total([first, second])), "none": _same(seen, None)}


def claims_l3_q2(v, trace) -> dict:
    grad = trace.namespace["w"].grad.item()
    value = {k: float(re.fullmatch(r"tensor\((.*)\)", text).group(1)) for k, text in v.params["literals"].items()}
    return {k: abs(grad - x) < 1e-6 for k, x in value.items()}


def claims_l3_q3(v, trace) -> dict:
    (grads, values) = trace.steps[1]
    p, zeroed = values[0].item(), grads[0] is not None and grads[0].item() == 0.0
    near = lambda name: abs(p - float(v.params[name])) < 1e-5  # noqa: E731
    return {"no_memory": zeroed and near("p1"), "skipped": grads[0] is None and near("p1"),
            "again": near("p_again"), "decay": zeroed and near("p_decay") and not near("p1")}


def claims_l3_q4(v, trace) -> dict:
    k = v.params["k"]
    seen, parts = trace.steps[1][0], trace.contributions
    whole = _total(parts)
    return {"both": _same(seen, whole), "second_group": _same(seen, _total(parts[k:])),
            "all": _same(seen, [g / 2 for g in whole]), "last_alone": _same(seen, parts[2 * k - 1])}


def _literal(v, name) -> list:
    """The numbers of a ``tensor(...)`` option."""
    return [float(x) for x in re.findall(r"-?[\d.]+", v.params["literals"][name].removeprefix("tensor"))]


def claims_l1_q1(v, trace) -> dict:
    s, t = trace.namespace["s"], trace.namespace["t"]
    flags = (s.requires_grad, s.is_leaf, t.requires_grad, t.is_leaf)
    return {"detached": flags == (False, True, True, False), "both_track": flags == (True, False, True, False),
            "nonleaf_nograd": flags == (False, False, True, False), "both_plain": flags == (False, True, False, True)}


def claims_l1_q2(v, trace) -> dict:
    literals = v.params["literals"]
    return {**{name: trace.raised_at == line for name, line in literals.items()}, "none": trace.raised_at is None}


def claims_l1_q3(v, trace) -> dict:
    with_grad = {n for n, p in trace.namespace["net"].named_parameters() if p.grad is not None}
    return {"all": with_grad == {"0.weight", "0.bias", "1.weight", "1.bias"}, "none": with_grad == set(),
            "second": with_grad == {"1.weight", "1.bias"}, "first": with_grad == {"0.weight", "0.bias"}}


def claims_l2_q1(v, trace) -> dict:
    grad = None if trace.error else trace.namespace["x"].grad
    value = lambda name: grad is not None and [grad.item()] == _literal(v, name)  # noqa: E731
    return {"power_branch": value("power_branch"), "linear_branch": value("linear_branch"),
            "none": trace.error is None and grad is None, "error": trace.raised_at == "if x > 0:"}


def claims_l2_q2(v, trace) -> dict:
    grad = None if trace.error else trace.namespace["x"].grad.tolist()
    return {"ones": grad == _literal(v, "ones"), "jv": grad == _literal(v, "jv"), "vjp": grad == _literal(v, "vjp"),
            "error": (trace.raised_at or "").startswith("y.backward(")}


def claims_l2_q3(v, trace) -> dict:
    grad = None if trace.error else trace.namespace["s"].grad.item()
    e = torch.e ** v.params["s0"]
    return {"second_raises": trace.raised_at == "loss2.backward()",
            "both_add": grad is not None and grad == pytest.approx(v.params["both"] * e)
            and f"{grad:.1f}" == v.params["both_value"],
            "last_only": grad is not None and grad == pytest.approx(v.params["last"] * e),
            "first_raises": (trace.raised_at or "").startswith("loss1.backward(")}


def claims_l4_q1(v, trace) -> dict:
    if trace.error:
        refused = "leaf Variable that requires grad" in str(trace.error)
        return {"tracked_copy": False, "new_leaf": False, "same_leaf": False, "refused": refused}
    w, original = trace.namespace["w"], trace.namespace["original"]
    as_list = lambda text: [float(x) for x in text.strip("[]").split(",")]  # noqa: E731
    return {"tracked_copy": w.requires_grad and not w.is_leaf,
            "new_leaf": not w.requires_grad and w.is_leaf and original.tolist() == as_list(v.params["original"]),
            "same_leaf": w is original and w.requires_grad
            and torch.allclose(w.detach(), torch.tensor(as_list(v.params["updated"]))),
            "refused": False}


def claims_l4_q2(v, trace) -> dict:
    requiring = {n for n in ("first", "second", "third", "fourth") if trace.namespace[n].requires_grad}
    return {"second": requiring == {"second"}, "three": requiring == {"second", "third", "fourth"},
            "second_third": requiring == {"second", "third"}, "none": requiring == set()}


def claims_l4_q3(v, trace) -> dict:
    saved = trace.error is not None and "modified by an inplace operation" in str(trace.error)
    return {"refused": trace.raised_at == "h += 1", "no_grad_fn": trace.raised_at == "out = (h * 2).sum()",
            "fine": trace.error is None, "saved_output": trace.raised_at == "out.backward()" and saved}


CLAIMS = {name.removeprefix("claims_"): claim for name, claim in globals().items() if name.startswith("claims_")}


def _namespace(question: str, v) -> dict:
    torch.manual_seed(0)
    ns = {"torch": torch, "nn": nn}
    count = 3 if question == "l3_q1" else 2 * v.params.get("k", 3)
    ns["batches"] = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(count)]
    if question == "l3_q4":
        ns["model"] = nn.Linear(3, 1)
        ns["optimizer"] = torch.optim.SGD(ns["model"].parameters(), lr=0.1)
        ns["loss_fn"] = nn.MSELoss()
    return ns


def right_options(v, monkeypatch) -> list:
    trace = Trace(_namespace(v.question, v))
    with monkeypatch.context() as m:
        trace.run(v.code, m)
    claims = CLAIMS[v.question](v, trace)
    assert set(claims) == set(v.order)
    return [name for name, holds in claims.items() if holds]


CHOICES = sorted(q for q, family in variants.FAMILIES.items() if family.options)  # the Quick Checks
CODES = sorted(q for q, family in variants.FAMILIES.items() if not family.options)  # exercises' code


def test_every_family_is_checked():
    assert set(CLAIMS) == set(CHOICES) and len(CHOICES) == 13
    assert CODES == ["l1_graph_predictions", "l3_accumulation_predictions"]


@pytest.mark.parametrize("question", CHOICES)
def test_every_variant_has_exactly_one_right_option_by_running_it(question, monkeypatch):
    rights, ran = set(), {}
    for seed in [None, *SEEDS]:
        v = variants.variant(question, seed)
        drawn = json.dumps([v.code, v.params], sort_keys=True)  # the order of the options changes no claim
        if drawn not in ran:
            ran[drawn] = right_options(v, monkeypatch)
        assert ran[drawn] == [v.right], (seed, v.code)
        assert sorted(v.order) == sorted(variants.FAMILIES[question].options)
        rights.add(json.dumps([v.right, v.params.get("literals", {}).get(v.right)]))
    assert len(ran) >= 3, "many seeds, several questions"
    assert len(rights) >= 2, "the code must decide which option (or which value) is right, not only the order"


@pytest.mark.parametrize("question", CHOICES)
def test_the_key_moves_between_students(question):
    secret = b"s" * 32
    drawn = [variants.of_student(secret, question, f"student{i}") for i in range(40)]
    assert {v.key for v in drawn} == set(LETTERS)
    assert len({(v.code, v.order) for v in drawn}) >= 8
    assert variants.of_student(secret, question, "student1") == drawn[1]  # the same student, the same question


def test_no_secret_or_no_student_gets_the_published_variant():
    for question in variants.FAMILIES:
        published = variants.variant(question, None)
        assert published.published
        assert variants.of_student(None, question, "student1") == published
        assert variants.of_student(b"s" * 32, question, None) == published
        assert variants.of_student(b"s" * 32, question, "") == published
        assert variants.of_student(b"t" * 32, question, "student1") != variants.of_student(b"s" * 32, question, "student1")


def test_the_published_variant_is_the_one_the_solution_answers():
    for question in CHOICES:
        nb = json.loads(source_notebook(variants.ASSIGNMENT[question[:2]]).read_text())
        solution = next("".join(c["source"]) for c in nb["cells"] if c.get("id") == "quick_check_answers")
        answers = dict(re.findall(r'answer_(q\d) = "([a-d])"', solution))
        assert variants.variant(question, None).key == answers[question[3:]], question


def test_what_a_kernel_sees_does_not_say_which_option_is_right():
    v = variants.of_student(b"s" * 32, "l3_q3", "student1")
    shown = v.shown()
    assert set(shown) == {"question", "code", "order", "params", "published"}
    assert v.key not in json.dumps(shown).split('"') and "right" not in shown


def test_the_graph_code_runs_and_its_graded_half_differs_between_students():
    """Every variant of exercise 1(a)'s code runs, and the graded tensors (``z``, ``d``) get
    many different true answers across students; the published one is the solution's."""
    from autograder.exercises.graph_predictions import judge as graph_predictions

    graded = set()
    for seed in SEEDS:
        truth = graph_predictions.true_properties(variants.variant("l1_graph_predictions", seed).shown())
        graded.add((truth["z"], truth["d"]))
    assert len(graded) >= 8
    solution = solutions(read(ROOT / "source" / "01_requires_grad" / "01_requires_grad.ipynb"))
    names: dict = {}
    exec(solution["graph_predictions"], names)
    assert names["predictions"] == graph_predictions.true_properties(None)


def v_grads_at_marks(code: str) -> dict:
    """What ``code`` (lesson 3's shown code for v) leaves in ``v.grad`` at each of its marked
    lines (``# (1) v_grad_before``, ...), run statement by statement."""
    seen, namespace = {}, {"torch": torch}
    for line in code.splitlines():
        marker = re.fullmatch(r"# \(\d\) (v_grad_\w+)", line)
        if marker:
            grad = namespace["v"].grad
            seen[marker.group(1)] = None if grad is None else grad.item()
        else:
            exec(line, namespace)
    return seen


def test_every_accumulation_variant_is_what_its_code_does():
    """The judge's truth for v, for every variant, is what the shown code leaves in ``v.grad``
    at its four marked lines, run statement by statement."""
    from autograder.exercises.accumulation_predictions.judge import v_truth

    truths = set()
    for seed in [None, *SEEDS]:
        shown = variants.variant("l3_accumulation_predictions", seed).shown()
        seen = v_grads_at_marks(shown["code"])
        assert seen == v_truth(shown), shown["code"]
        truths.add(json.dumps(seen))
    assert len(truths) >= 10
