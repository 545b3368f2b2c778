"""The lessons package: demos compared with PyTorch itself, widgets, Quick Checks, hints, exercise (a)/(d) judges."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
import torch  # noqa: E402
from judging import judge_function  # noqa: E402

from autograder.judges import variants  # noqa: E402
from autograder.exercises.accumulation_predictions.judge import true_values, v_truth, verify_value  # noqa: E402
from autograder.wire.codec import roundtrip  # noqa: E402
from lessons import demos, exercises, quiz, widgets  # noqa: E402


def test_pile_up_matches_repeated_backward():
    data = demos.pile_up(4, w_value=2.0)
    single = 6 * 2.0  # d(3w²)/dw
    assert data["with"] == [single] * 4
    assert data["without"] == [single * k for k in range(1, 5)]


def test_training_without_zero_grad_never_settles():
    with_clear, without = demos.train_regression(True), demos.train_regression(False)
    assert with_clear[-1] < 0.05 < without[-1]
    assert all(b <= a * (1 + 1e-5) for a, b in zip(with_clear, with_clear[1:]))  # float32 at the floor
    facts = demos.training_summary(with_clear, without)
    assert facts["swings"] and facts["finite"] and facts["late_without"] > 100 * facts["late_with"]


def test_exploding_gradients_are_huge_in_every_weight_and_grow_between_layers():
    data = demos.exploding_gradients()
    assert min(data["exploding"]["weights"]) > 1e4 * max(data["healthy"]["weights"])
    outputs = data["exploding"]["outputs"]
    assert all(a > b for a, b in zip(outputs, outputs[1:]))  # larger toward the input


def test_pile_up_widget_redraws_when_the_slider_moves():
    w = widgets.GradPileUp(calls=2)
    before = w.caption.value
    first_plot = bytes(w.plot.value)
    assert "w.grad = 24" in before and first_plot.startswith(b"\x89PNG")
    w.slider.value = 5
    assert w.caption.value != before and "w.grad = 60" in w.caption.value
    assert bytes(w.plot.value).startswith(b"\x89PNG") and bytes(w.plot.value) != first_plot


def test_figure_box_holds_plot_and_caption():
    from lessons import plots
    box = widgets.figure_box(*plots.training_figure(steps=10))
    image, caption = box.children
    assert bytes(image.value).startswith(b"\x89PNG") and "10 steps" in caption.value


@pytest.mark.parametrize("qid", sorted(quiz.PRACTICE_ANSWERS))
def test_practice_question_is_right_for_its_answer_only(qid):
    q = quiz.MultipleChoice(qid)
    for letter in quiz.LETTERS:
        q.choices.value = letter
        q.button.click()
        right = letter == quiz.PRACTICE_ANSWERS[qid]
        assert ("Correct" in q.feedback.value) is right
        assert quiz.explanation(qid, letter) in q.feedback.value


def test_practice_answers_are_spread_over_the_four_letters():
    from collections import Counter

    counts = Counter(quiz.PRACTICE_ANSWERS.values())
    assert sorted(counts) == list(quiz.LETTERS) and max(counts.values()) - min(counts.values()) <= 1
    for lesson in "1234":  # and no letter twice in a row within a lesson
        letters = [letter for qid, letter in sorted(quiz.PRACTICE_ANSWERS.items()) if qid[1] == lesson]
        assert all(a != b for a, b in zip(letters, letters[1:])), (lesson, letters)


def test_quiz_widget_shows_the_explanation_of_the_clicked_choice():
    q = quiz.MultipleChoice("l3_p2")
    q.button.click()
    assert "Choose" in q.feedback.value
    q.choices.value = "b"
    q.button.click()
    assert "Not quite" in q.feedback.value and "throws away" in q.feedback.value
    q.choices.value = "c"
    q.button.click()
    assert "Correct" in q.feedback.value


def test_hints_are_tiered(capsys):
    exercises.train_loop.hint()
    first = capsys.readouterr().out
    exercises.train_loop.hint(2)
    second = capsys.readouterr().out
    assert "Hint 1 of 3" in first and "Hint 2 of 3" in second and first != second
    exercises.train_loop.hint(9)
    assert "last hint" in capsys.readouterr().out


def test_exercise_check_prints_the_diagnosis(capsys):
    def train(model, optimizer, loss_fn, batches):
        return [0.0]
    assert exercises.train_loop.check(train) is False
    assert "never called" in capsys.readouterr().out


# -- exercise (a): predictions, judged against what PyTorch really does -------------
def test_true_values_come_from_pytorch():
    w = torch.tensor(3.0, requires_grad=True)
    (2 * w ** 2).backward()
    assert true_values()["grad_after_one"] == w.grad.item() == 12.0


ALL_RIGHT = {"grad_before": None, "grad_after_one": 12.0, "grad_after_two": 24.0, "grad_after_clear": 12.0,
             "v_grad_before": None, "v_grad_after_one": -9.0, "v_grad_after_two": -18.0, "v_grad_after_clear": -9.0}
V_NAMES = ("v_grad_before", "v_grad_after_one", "v_grad_after_two", "v_grad_after_clear")
V_KEY = {name: ALL_RIGHT[name] for name in V_NAMES}
V_FAMILY = "l3_accumulation_predictions"
PUBLISHED_V = variants.variant(V_FAMILY, None).shown()
WRONG_OTHER = (" which is not what PyTorch gives for the second piece of code (v). The rules are those of the first: "
               ".grad is None before any backward(), each backward() adds d(loss)/dv into it, and after v.grad = None "
               "the next one starts from nothing.")


@pytest.mark.parametrize("changes,ok,words", [
    ({}, True, ""),
    ({"grad_after_one": 12, "grad_after_two": torch.tensor(24.0)}, True, ""),
    ({"grad_before": 0.0}, False, "should be None"),
    ({"grad_after_one": "12"}, False, "should be a number"),
    ({"grad_after_one": 6.0}, False, "w = 3.0"),
    ({"grad_before": ..., "grad_after_one": ...}, False, "still `...`"),
    ({"grad_after_two": 12.0}, False, "adds into .grad"),
    ({"grad_after_clear": 36.0}, False, "starts from nothing"),
    ({"grad_after_two": torch.tensor([24.0, 0.0])}, False, "should be a number"),
    # the v predictions: the visible test checks their form only, so a wrong one passes it...
    ({"v_grad_after_two": -9.0, "v_grad_before": 0.0}, True, ""),
    # ...but not an unanswered one, nor one that is not a number
    ({"v_grad_after_one": ...}, False, "`v_grad_after_one` is still `...`: replace it with your prediction"),
    ({"v_grad_after_clear": "-9"}, False, "`v_grad_after_clear` should be a number (a Python float), got '-9'."),
    # NaN compares false with everything: as a number it would match any expected value
    ({"grad_after_one": float("nan")}, False, "`grad_after_one` should be a number (a Python float), got nan."),
    ({"grad_after_two": float("inf")}, False, "should be a number"),
])
def test_predictions(changes, ok, words):
    """The four w predictions are checked by the visible test (the point of the exercise is
    the second and the fourth), as the judge will see them; the four v ones only in form."""
    verdict = verify_value(roundtrip(dict(ALL_RIGHT, **changes)), "visible")
    assert verdict.ok is ok, verdict.message
    assert words in verdict.message


@pytest.mark.parametrize("changes,message", [
    ({}, ""),
    ({"v_grad_after_one": -9, "v_grad_after_two": torch.tensor(-18.0)}, ""),
    ({"v_grad_before": 0.0}, "`v_grad_before` should be None: .grad of a leaf is None until the first backward() "
                             "reaches it (it is not 0)."),
    ({"v_grad_after_one": 9.0}, "`v_grad_after_one` is 9.0," + WRONG_OTHER),  # the sign
    ({"v_grad_after_one": -6.0}, "`v_grad_after_one` is -6.0," + WRONG_OTHER),  # 4·v, the w loss's rule
    ({"v_grad_after_two": -9.0}, "`v_grad_after_two` is -9.0," + WRONG_OTHER),  # replaced, not added
    ({"v_grad_after_clear": -27.0}, "`v_grad_after_clear` is -27.0," + WRONG_OTHER),  # never cleared
    ({"v_grad_after_two": None}, "`v_grad_after_two` should be a number (a Python float), got None."),
    ({"v_grad_after_clear": ...}, "`v_grad_after_clear` is still `...`: replace it with your prediction (a number, "
                                  "or None)."),
    ({"v_grad_after_one": float("nan"), "v_grad_after_two": float("nan"), "v_grad_after_clear": float("nan")},
     "`v_grad_after_one` should be a number (a Python float), got nan."),
])
def test_hidden_predictions_are_judged_against_the_variant(changes, message):
    """The points depend on the v predictions, which only the hidden test judges: against the
    student's own variant (here the published one, whose truth the solution holds)."""
    answers = roundtrip({name: dict(ALL_RIGHT, **changes)[name] for name in V_NAMES})
    verdict = verify_value(answers, "hidden", variant=PUBLISHED_V)
    assert verdict.ok is (message == ""), verdict.message
    assert verdict.message == message
    if "`...`" not in message and "a number" not in message:  # without a variant, only the form
        assert verify_value(answers, "hidden").ok


def test_another_variant_has_another_truth():
    """A student whose v starts elsewhere, or whose loss differs, answers other numbers: the
    published answers (in the source's solution) score nothing for them."""
    answers = roundtrip({name: ALL_RIGHT[name] for name in V_NAMES})
    other = [variants.variant(V_FAMILY, seed).shown() for seed in range(40)]
    differing = [v for v in other if v["params"] != PUBLISHED_V["params"]]
    assert len(differing) > 30
    for shown in differing:
        verdict = verify_value(answers, "hidden", variant=shown)
        assert not verdict.ok and verdict.mistake == "wrong_prediction", shown["params"]
        truth = v_truth(shown)
        assert verify_value(roundtrip(truth), "hidden", variant=shown).ok


def test_the_published_variant_is_the_code_the_solution_answers():
    """The published variant's code, run statement by statement, gives the solution's v answers."""
    from helpers import ROOT, solutions, read
    from test_variants import v_grads_at_marks

    solution = solutions(read(ROOT / "source" / "03_zeroing_grad" / "03_zeroing_grad.ipynb"))
    names: dict = {}
    exec(solution["accumulation_predictions"], names)
    assert {name: names[name] for name in V_NAMES} == V_KEY == v_truth(None)
    assert v_grads_at_marks(PUBLISHED_V["code"]) == V_KEY


def test_a_student_calling_the_hidden_check_learns_only_that_it_is_recorded(capsys):
    from autograder.kernel.checks import check_accumulation_predictions

    wrong = dict(ALL_RIGHT, v_grad_after_two=-9.0)
    check_accumulation_predictions({name: wrong[name] for name in V_NAMES}, cases="hidden")
    assert capsys.readouterr().out.startswith("Recorded: Exercise (a).")
    with pytest.raises(AssertionError, match="v_grad_after_two"):
        check_accumulation_predictions({name: wrong[name] for name in V_NAMES}, cases="hidden", variant=PUBLISHED_V)
    with pytest.raises(TypeError):
        check_accumulation_predictions(wrong, colour="red")


# -- exercise (d): manual SGD, right and wrong ----------------------------------------
def fit_right(w, b, xs, ys, lr, steps):
    for _ in range(steps):
        w.grad = None
        b.grad = None
        ((w * xs + b - ys) ** 2).mean().backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad


def fit_zero_inplace(w, b, xs, ys, lr, steps):
    for _ in range(steps):
        for t in (w, b):
            if t.grad is not None:
                t.grad.zero_()
        ((w * xs + b - ys) ** 2).mean().backward()
        with torch.no_grad():
            w.sub_(lr * w.grad)
            b.sub_(lr * b.grad)


def fit_never_clears(w, b, xs, ys, lr, steps):
    for _ in range(steps):
        ((w * xs + b - ys) ** 2).mean().backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad


def fit_clears_after(w, b, xs, ys, lr, steps):
    for _ in range(steps):
        ((w * xs + b - ys) ** 2).mean().backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad = b.grad = None


def fit_no_no_grad(w, b, xs, ys, lr, steps):
    for _ in range(steps):
        w.grad = b.grad = None
        ((w * xs + b - ys) ** 2).mean().backward()
        w -= lr * w.grad
        b -= lr * b.grad


def fit_rebinds(w, b, xs, ys, lr, steps):
    for _ in range(steps):
        ((w * xs + b - ys) ** 2).mean().backward()
        w = w - lr * w.grad
        b = b - lr * b.grad


def fit_wrong_lr(w, b, xs, ys, lr, steps):
    fit_right(w, b, xs, ys, lr * 2, steps)


@pytest.mark.parametrize("fn,mistake,words", [
    (fit_right, None, ""),
    (fit_zero_inplace, None, ""),
    (fit_never_clears, "never_cleared", "never cleared"),
    (fit_clears_after, "stale_first_step", "stale gradient"),
    (fit_no_no_grad, "inplace_on_leaf", "torch.no_grad()"),
    (fit_rebinds, "not_leaf", "no longer the leaf"),
    (fit_wrong_lr, "wrong_values", "gradient descent from the same start"),
    ("not a function", "not_callable", "not a function"),
])
def test_fit_line(fn, mistake, words):
    verdict, _ = judge_function("fit_line", fn, "all")
    assert verdict.ok is (mistake is None), verdict.message
    if mistake:
        assert verdict.mistake == mistake and words in verdict.message, verdict.message


# -- lesson 1: the graph widget reads the real grad_fn chain ---------------------------------
def test_graph_build_matches_grad_fn_chain():
    from lessons import graph_view
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0])
    g = graph_view.build((a * b).sum(), {"a": a, "b": b})
    assert sorted(l for k, l in g.labels.items() if g.kinds[k] == "op") == ["MulBackward0", "SumBackward0"]
    assert [l.split("\n")[0] for k, l in g.labels.items() if g.kinds[k] == "leaf"] == ["a (leaf)"]
    assert len(g.edges) == 3


def test_graph_widget_follows_flags_and_expression():
    w = widgets.GraphExplorer("a * b + c")
    assert "AddBackward0" in w.caption.value and "c (leaf)" in w.caption.value
    picture = bytes(w.plot.value)
    w.flags["c"].value = False
    assert "c (leaf)" not in w.caption.value and bytes(w.plot.value) != picture
    w.preset.value = "(a + b).detach() * c"
    assert "no grad_fn" in w.caption.value
    w.expression.value = "a +* b"
    assert "could not be computed" in w.caption.value


# -- lesson 2: finite differences against autograd ------------------------------------------
def test_fd_errors_show_truncation_and_round_off():
    errs = demos.fd_errors("sin(x)", [1e-2, 1e-6, 1e-13])
    assert errs["exact"] == pytest.approx(torch.cos(torch.tensor(1.0, dtype=torch.float64)).item())
    assert errs["central"][0] < errs["forward"][0]        # central is better at large ε
    assert errs["forward"][1] < errs["forward"][0]        # truncation falls with ε …
    assert errs["forward"][2] > errs["forward"][1]        # … until round-off takes over


def test_fd_widget_moves_with_the_slider():
    w = widgets.FiniteDifference("exp(x)", eps=1e-6)
    before = (w.caption.value, bytes(w.plot.value))
    w.slider.value = 1e-12
    assert w.caption.value != before[0] and bytes(w.plot.value) != before[1]
    assert "ε = 1e-12" in w.caption.value


# -- lesson 4: memory saved for backward, measured -------------------------------------------
def test_saved_tensors_grow_with_batch_and_vanish_under_no_grad():
    rows = demos.memory_by_batch([4, 64])
    assert [r["bytes"] for r in rows["no_grad"]] == [0, 0]
    assert rows["grad"][1]["bytes"] > rows["grad"][0]["bytes"] > 0
    assert [r["tensors"] for r in rows["grad"]] == [2, 2]  # the two ReLU outputs; input and weights not counted
    assert [r["bytes"] for r in rows["grad"]] == [2 * n * 256 * 4 for n in (4, 64)]


def test_memory_widget_moves_with_the_slider():
    w = widgets.NoGradMemory(max_batch=16)
    before = w.caption.value
    w.slider.value = 1024
    assert "batch size 1024" in w.caption.value and w.caption.value != before


def test_dropout_demo_states_the_facts():
    facts = demos.dropout_outputs()
    assert facts == {"train_differ": True, "eval_same": True, "eval_requires_grad": True}


def test_hint_opens_with_the_diagnosis_of_the_students_own_code(capsys):
    import catalogue
    train = next(e for e in catalogue.TRAIN_LOOP if e.name == "never_cleared").load()
    exercises.train_loop.hint(namespace={"train": train})
    out = capsys.readouterr().out
    assert out.startswith("What your code does right now: Gradients were never cleared")
    assert "Hint 1 of 3" in out
    exercises.train_loop.hint(2, namespace={})
    assert "Run your answer cell first" in capsys.readouterr().out


def test_hint_reads_the_notebooks_variables(capsys):
    """In a notebook, hint() reads the cell's globals: emulate a cell with exec."""
    cell = "grad_before, grad_after_one = 0.0, 12.0\nexercises.accumulation_predictions.hint()"
    exec(cell, {"exercises": exercises})
    out = capsys.readouterr().out
    assert "What your code does right now" in out and "should be None" in out


def test_widgets_skip_drawing_while_nbgrader_runs(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    w = widgets.GradPileUp(calls=2)
    assert not w.plot.value and not w.caption.value
    monkeypatch.delenv("NBGRADER_EXECUTION")
    w.slider.value = 3
    assert bytes(w.plot.value).startswith(b"\x89PNG") and "w.grad = 36" in w.caption.value
