"""Graded Quick Checks: each question's code snippet, read from its markdown cell in the source
notebook (or, for a generated question, its published variant as the question cell shows it),
is run with PyTorch, and the choice its key names must be the one that is true (and no other
choice may be). Plus the layout the graders rely on: one markdown cell per question (and a
question cell for a generated one), one answer cell, one test cell per question whose key sits
only in hidden tests or, generated, only in the judge (``tests/test_variants.py`` checks every
other variant).
"""
from __future__ import annotations

import ast
import re
from collections import Counter

import pytest
import torch
from helpers import ROOT, grade_id, read, source_notebooks
from torch import nn
from torch.func import functional_call
from torch.optim.optimizer import register_optimizer_step_pre_hook

from autograder import messages as grader_messages
from autograder.judges import variants
from lessons.quiz import question_markdown

SOURCES = source_notebooks()
KEY_CALL = re.compile(r'check_choice\("(l\d_q\d)", answer_q(\d), key="([a-d])"\)')


def _graded(name: str) -> list:
    """(qid, number, key, markdown) for each graded question of a lesson, in order."""
    cells = {c.id: c for c in SOURCES[name].cells}
    found = []
    for cell in SOURCES[name].cells:
        if re.fullmatch(r"quiz_q\d", grade_id(cell) or ""):
            qid, number = re.match(r'check_choice\("(l\d_q\d)", answer_q(\d)\)', cell.source).groups()
            text = cells[f"quick-check-q{number}"].source
            if variants.has_variants(qid):
                published = variants.variant(qid, None)
                key, text = published.key, f"{text}\n\n{question_markdown(qid, published.shown())}"
            else:
                (_, _, key), = KEY_CALL.findall(cell.source.split("### BEGIN HIDDEN TESTS")[1])
            found.append((qid, int(number), key, text))
    return found


QUESTIONS = {qid: (name, number, key, text) for name in SOURCES
             for qid, number, key, text in _graded(name)}


def snippet(qid: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", QUESTIONS[qid][3], re.S)
    assert len(blocks) == 1, qid
    return blocks[0]


class Run:
    """The snippet run statement by statement: the namespace, and which statement raised."""

    def __init__(self, source: str, **names):
        self.ns = {"torch": torch, "nn": nn, **names}
        self.raised_at = self.error = None
        for node in ast.parse(source).body:
            try:
                exec(compile(ast.Module([node], []), "<snippet>", "exec"), self.ns)
            except Exception as error:  # noqa: BLE001 - which line raises is the question
                self.raised_at = ast.get_source_segment(source, node).splitlines()[0]
                self.error = error
                return

    def __getitem__(self, name):
        return self.ns[name]


def _one(claims: dict) -> str | None:
    """The only letter whose claim holds (None if none or several do)."""
    true = [letter for letter, holds in claims.items() if holds]
    assert sorted(claims) == ["a", "b", "c", "d"]
    return true[0] if len(true) == 1 else None


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return all(torch.allclose(x, y, atol=1e-6) for x, y in zip(a, b))


class LoopRecorder:
    """Records each forward pass of one model (its input and the parameters it ran with) and the
    gradients every optimizer step sees, to say which batch's gradient a step used."""

    def __init__(self):
        self.forwards, self.steps, self.handles = [], [], []

    def __enter__(self):
        self.handles.append(nn.modules.module.register_module_forward_hook(self._forward))
        self.handles.append(register_optimizer_step_pre_hook(self._step))
        return self

    def __exit__(self, *exc):
        for handle in self.handles:
            handle.remove()

    def _forward(self, module, args, output):
        params = {n: p.detach().clone() for n, p in module.named_parameters()}
        if not params:  # the loss function is a module too
            return
        self.forwards.append((module, args[0], params))

    def _step(self, optimizer, args, kwargs):
        self.steps.append([None if p.grad is None else p.grad.clone()
                           for group in optimizer.param_groups for p in group["params"]])

    def gradient(self, k: int, y: torch.Tensor, scale: float = 1.0) -> list:
        """The gradient of forward pass k's mean squared error, at the parameters it ran with."""
        module, x, params = self.forwards[k]
        params = {n: p.clone().requires_grad_() for n, p in params.items()}
        loss = nn.functional.mse_loss(functional_call(module, params, (x,)), y) * scale
        return list(torch.autograd.grad(loss, list(params.values())))


def _sum(*grads):
    return [sum(parts) for parts in zip(*grads)]


def _batches(n: int, seed: int) -> list:
    gen = torch.Generator().manual_seed(seed)
    return [(torch.randn(4, 3, generator=gen), torch.randn(4, 1, generator=gen)) for _ in range(n)]


# For each question: run its snippet, then say which letter's claim is true.
def judge_l1_q1(source):
    run = Run(source)
    s, t = run["s"], run["t"]
    flags = (s.requires_grad, s.is_leaf, t.requires_grad, t.is_leaf)
    return _one({"a": flags == (False, True, True, False), "b": flags == (True, False, True, False),
                 "c": flags == (False, False, True, False), "d": flags == (False, True, False, True)})


def judge_l1_q2(source):
    run = Run(source)
    return _one({"a": run.raised_at == "x.requires_grad = True",
                 "b": run.raised_at == "z.requires_grad = True",
                 "c": run.raised_at == "y.requires_grad = False", "d": run.raised_at is None})


def judge_l1_q3(source):
    run = Run(source)
    with_grad = {n for n, p in run["net"].named_parameters() if p.grad is not None}
    return _one({"a": with_grad == {"0.weight", "0.bias", "1.weight", "1.bias"},
                 "b": with_grad == set(), "c": with_grad == {"1.weight", "1.bias"},
                 "d": with_grad == {"0.weight", "0.bias"}})


def judge_l2_q1(source):
    run = Run(source)
    grad = None if run.error else run["x"].grad
    return _one({"a": grad is not None and grad.item() == 12.0,
                 "b": grad is not None and grad.item() == -4.0,
                 "c": run.error is None and grad is None,
                 "d": run.raised_at == "if x > 0:"})


def judge_l2_q2(source):
    run = Run(source)
    grad = None if run.error else run["x"].grad.tolist()
    return _one({"a": grad == [4.0, 3.0], "b": grad == [23.0, 11.0],
                 "c": run.raised_at is not None and run.raised_at.startswith("y.backward("),
                 "d": grad == [13.0, 12.0]})


def judge_l2_q3(source):
    run = Run(source)
    e2 = torch.e ** 2
    grad = None if run.error else run["s"].grad.item()
    return _one({"a": run.raised_at == "loss2.backward()",
                 "b": grad is not None and grad == pytest.approx(8 * e2),
                 "c": grad is not None and grad == pytest.approx(5 * e2),
                 "d": run.raised_at == "loss1.backward()"})


def judge_l3_q1(source):
    batches = _batches(3, seed=1)
    with LoopRecorder() as rec:
        run = Run(source, batches=batches)
    assert run.error is None and len(rec.steps) == 3 and len(rec.forwards) == 3
    used = rec.steps[1]
    g1, g2 = rec.gradient(0, batches[0][1]), rec.gradient(1, batches[1][1])
    return _one({"a": _close(used, g2), "b": _close(used, _sum(g1, g2)), "c": _close(used, g1),
                 "d": all(g is None for g in used)})


def judge_l3_q2(source):
    grad = Run(source)["w"].grad
    return _one({letter: grad.item() == value
                 for letter, value in {"a": 3.0, "b": 6.0, "c": 9.0, "d": 2.0}.items()})


def judge_l3_q3(source):
    run = Run(source)
    p = run["p"]
    stayed = p.item() == pytest.approx(0.75)
    return _one({"a": stayed and p.grad is not None and p.grad.item() == 0.0,
                 "b": stayed and p.grad is None,
                 "c": p.item() == pytest.approx(0.55),
                 "d": p.item() == pytest.approx(0.7125)})


def judge_l3_q4(source):
    batches = _batches(6, seed=2)
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with LoopRecorder() as rec:
        run = Run(source, batches=batches, model=model, optimizer=optimizer, loss_fn=nn.MSELoss())
    assert run.error is None and len(rec.steps) == 2 and len(rec.forwards) == 6
    g = [rec.gradient(k, batches[k][1], scale=1 / 3) for k in range(6)]
    used = rec.steps[1]
    return _one({"a": _close(used, _sum(*g)),
                 "b": _close(used, _sum(*g[3:])),
                 "c": _close(used, [part / 2 for part in _sum(*g)]),
                 "d": _close(used, g[5])})


def judge_l4_q1(source):
    run = Run(source)
    if run.error:
        return _one({"a": False, "b": False, "c": False,
                     "d": run.raised_at == "with torch.no_grad():"})
    w, original = run["w"], run["original"]
    return _one({"a": w.requires_grad and not w.is_leaf,
                 "b": not w.requires_grad and w.is_leaf and original.tolist() == [1.0, 2.0],
                 "c": w is original and w.requires_grad
                 and torch.allclose(w.detach(), torch.tensor([0.8, 1.6])),
                 "d": False})


def judge_l4_q2(source):
    run = Run(source)
    requiring = {n for n in ("first", "second", "third", "fourth") if run[n].requires_grad}
    return _one({"a": requiring == {"second"}, "b": requiring == {"second", "third", "fourth"},
                 "c": requiring == {"second", "third"}, "d": requiring == set()})


def judge_l4_q3(source):
    run = Run(source)
    inplace = run.error is not None and "modified by an inplace operation" in str(run.error)
    return _one({"a": run.raised_at == "h += 1",
                 "b": run.raised_at == "out = (h * 2).sum()",
                 "c": run.raised_at is None,
                 "d": run.raised_at == "out.backward()" and inplace})


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_the_key_is_the_one_true_choice_when_the_snippet_runs(qid):
    key = QUESTIONS[qid][2]
    assert globals()[f"judge_{qid}"](snippet(qid)) == key


def test_a_judge_notices_a_wrong_key():
    """The judges are not rubber stamps: a snippet changed so that another choice holds."""
    assert judge_l3_q2(snippet("l3_q2").replace("    if step == 1:\n        w.grad = None\n", "")) == "c"
    assert judge_l1_q2(snippet("l1_q2").replace("y.requires_grad = False", "y.sum()")) == "d"
    assert judge_l3_q1(snippet("l3_q1").replace(
        "    optimizer.step()\n    optimizer.zero_grad()\n", "    optimizer.zero_grad()\n")
        + "    optimizer.step()\n") == "a"


def test_every_lesson_has_its_graded_questions_and_a_question_per_test_cell():
    counts = {name: len(_graded(name)) for name in SOURCES}
    assert counts == {"01_requires_grad": 3, "02_backward": 3, "03_zeroing_grad": 4, "04_no_grad": 3}
    for name in SOURCES:
        assert [n for _, n, _, _ in _graded(name)] == list(range(1, counts[name] + 1))
        assert all(qid == f"l{int(name[:2])}_q{n}" for qid, n, _, _ in _graded(name))


def test_keys_are_balanced_across_the_course():
    counts = Counter(key for _, _, key, _ in QUESTIONS.values())
    assert set(counts) == {"a", "b", "c", "d"}
    assert all(2 <= n <= 4 for n in counts.values()), counts


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_question_cell_has_a_snippet_and_four_choices_and_a_revisit_text(qid):
    text = QUESTIONS[qid][3]
    assert text.startswith(f"**Question {QUESTIONS[qid][1]}.**")
    assert re.findall(r"^- \*\*([a-d])\)\*\* ", text, re.M) == ["a", "b", "c", "d"]
    revisit = grader_messages.text(f"revisit.{qid}")
    assert revisit.startswith("section")


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_graded_cells_layout(name):
    cells = SOURCES[name].cells
    ids = [c.id for c in cells]
    questions = _graded(name)
    n = len(questions)
    # the practice questions come first, or (lesson 3) under Going further, out of the hour
    further = ids.index("going-further") if "going-further" in ids else len(ids)
    practice = [] if ids.index("quick-check-widgets") > further else ["quick-check-widgets"]
    shown = [[f"quick-check-q{k}", f"quiz_q{k}_question"] if variants.has_variants(qid) else [f"quick-check-q{k}"]
             for qid, k, _, _ in questions]
    order = ["quick-check", *practice, "quick-check-graded",
             *[cell for pair in shown for cell in pair], "quick_check_answers",
             *[f"quiz_q{k}" for k in range(1, n + 1)]]
    start = ids.index("quick-check")
    assert ids[start:start + len(order)] == order
    answer = cells[ids.index("quick_check_answers")]
    assert answer.metadata["nbgrader"] == {"grade": False, "grade_id": "quick_check_answers",
                                           "locked": False, "schema_version": 3, "solution": True,
                                           "task": False}
    stub, solution = answer.source.split("### BEGIN SOLUTION\n")
    assert stub == "".join(f"answer_q{k} = None\n" for k in range(1, n + 1))
    assert solution == "".join(f'answer_q{k} = "{key}"\n' for _, k, key, _ in questions) \
        + "### END SOLUTION"
    for qid, k, key, _ in questions:
        cell = cells[ids.index(f"quiz_q{k}")]
        assert cell.metadata["nbgrader"] == {"grade": True, "grade_id": f"quiz_q{k}", "locked": True,
                                             "points": 1, "schema_version": 3, "solution": False,
                                             "task": False}
        if variants.has_variants(qid):  # the key is the judge's, drawn for each student
            assert cell.source == f'check_choice("{qid}", answer_q{k})'
            question = cells[ids.index(f"quiz_q{k}_question")]
            assert question.source == f'quiz.question("{qid}")' and question.metadata["nbgrader"]["locked"]
            assert "```" not in cells[ids.index(f"quick-check-q{k}")].source
            continue
        assert cell.source == (f'check_choice("{qid}", answer_q{k})\n### BEGIN HIDDEN TESTS\n'
                               f'check_choice("{qid}", answer_q{k}, key="{key}")\n'
                               "### END HIDDEN TESTS")


def test_keys_ship_nowhere_but_the_hidden_tests():
    shipped = [*ROOT.glob("lessons/**/*.py"), *ROOT.glob("lessons/**/*.toml"),
               *ROOT.glob("autograder/**/*.py"), *ROOT.glob("autograder/**/*.toml"),
               *ROOT.glob("release/**/*.ipynb")]
    for path in shipped:
        text = path.read_text()
        assert "key=" not in text or path.suffix == ".py", path
        for qid in QUESTIONS:
            assert not re.search(rf'{qid}\W+(key\W+)?[a-d]\b["\']', text), (path, qid)
    for name in SOURCES:
        release = read(ROOT / "release" / name / f"{name}.ipynb")
        for cell in release.cells:
            if re.fullmatch(r"quiz_q\d", grade_id(cell) or ""):
                assert "key=" not in cell.source and "HIDDEN" not in cell.source


def test_practice_questions_are_not_the_graded_ones():
    from lessons import quiz
    assert not set(quiz.PRACTICE_ANSWERS) & set(QUESTIONS)
    assert not hasattr(quiz, "ANSWERS") and not hasattr(quiz, "check_quiz")
