"""What the lessons' prose, hints and grader messages claim about PyTorch, run with PyTorch.

Each test states one claim the text makes and checks it on real tensors, so a sentence
that stops being true (or a PyTorch release that changes the behaviour) fails here.
"""
from __future__ import annotations

import pytest
import torch
from helpers import source_notebooks
from torch import nn

from autograder import messages
from lessons import demos, plots
from lessons.text import raw


# -- hints.fit_line, level 3 ---------------------------------------------------------------
def test_rebinding_under_no_grad_gives_a_leaf_that_does_not_require_grad():
    """The hint: `w = w - lr * w.grad` under no_grad points the name at a new tensor that does
    not require grad, and the caller's tensor never changes (it is NOT "a non-leaf")."""
    caller = torch.tensor(1.0, requires_grad=True)
    (3 * caller ** 2).backward()
    w = caller
    with torch.no_grad():
        w = w - 0.1 * w.grad
    assert w is not caller and w.is_leaf and not w.requires_grad
    assert caller.item() == 1.0 and caller.requires_grad
    hint = raw("hints.fit_line")["3"]
    assert "does not require grad" in hint and "no longer a leaf" not in hint


def test_in_place_update_under_no_grad_changes_the_callers_leaf():
    caller = torch.tensor(1.0, requires_grad=True)
    (3 * caller ** 2).backward()
    w = caller
    with torch.no_grad():
        w -= 0.1 * w.grad
    assert w is caller and caller.is_leaf and caller.requires_grad
    assert caller.item() == pytest.approx(0.4)


# -- unscaled accumulation: lesson 3 §6, practice l3_p4, the grader's loop.unscaled ----------
def _accumulated_step(opt_cls, scale: float, steps: int = 3, **kwargs) -> torch.Tensor:
    """Parameters after `steps` accumulated steps of 4 micro-batches, each loss times `scale`."""
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    start = torch.cat([p.detach().flatten().clone() for p in model.parameters()])
    optimizer = opt_cls(model.parameters(), **kwargs)
    for _ in range(steps):
        optimizer.zero_grad()
        for _ in range(4):
            x, y = torch.randn(8, 3, generator=gen), torch.randn(8, 1, generator=gen)
            (nn.functional.mse_loss(model(x), y) * scale).backward()
        optimizer.step()
    return torch.cat([p.detach().flatten() for p in model.parameters()]) - start


def _moves_with_fixed_gradients(opt_cls, scale: float, **kwargs) -> torch.Tensor:
    """How far three steps move a parameter fed the same gradients, times `scale`."""
    p = nn.Parameter(torch.tensor([1.0, -2.0]))
    optimizer = opt_cls([p], **kwargs)
    for g in ([0.3, -0.7], [0.5, 0.1], [-0.2, 0.4]):
        p.grad = torch.tensor(g) * scale
        optimizer.step()
    return p.detach() - torch.tensor([1.0, -2.0])


def test_unscaled_accumulation_makes_an_sgd_step_four_times_too_long():
    right = _accumulated_step(torch.optim.SGD, 1 / 4, steps=1, lr=0.01)
    unscaled = _accumulated_step(torch.optim.SGD, 1.0, steps=1, lr=0.01)
    assert torch.allclose(unscaled, 4 * right, rtol=1e-4, atol=1e-7)


def test_four_times_the_gradients_make_momentum_sgd_move_four_times_as_far():
    right = _moves_with_fixed_gradients(torch.optim.SGD, 1.0, lr=0.1, momentum=0.9)
    scaled = _moves_with_fixed_gradients(torch.optim.SGD, 4.0, lr=0.1, momentum=0.9)
    assert torch.allclose(scaled, 4 * right, rtol=1e-5)


def test_unscaled_accumulation_barely_changes_adam_steps():
    right = _accumulated_step(torch.optim.Adam, 1 / 4, lr=0.01)
    unscaled = _accumulated_step(torch.optim.Adam, 1.0, lr=0.01)
    assert torch.allclose(unscaled, right, rtol=1e-3, atol=1e-7)
    assert not torch.allclose(unscaled, 4 * right, rtol=0.5)
    fixed, scaled = (_moves_with_fixed_gradients(torch.optim.Adam, s, lr=0.1) for s in (1.0, 4.0))
    assert torch.allclose(scaled, fixed, rtol=1e-5)


def test_unscaled_message_and_practice_explanation_name_both_optimizers():
    message = messages.text("loop.unscaled", step=1, where="line 7", accum=4)
    practice = raw("quiz.l3_p4.why_a")
    for words in (message, practice):
        assert "SGD" in words and "Adam" in words and "barely change" in words


# -- lesson 3 §10: a zero gradient and the optimizer ---------------------------------------
def _after_zero_grad_step(opt_cls, set_to_none: bool, **kwargs) -> float:
    p = nn.Parameter(torch.tensor(1.0))
    optimizer = opt_cls([p], **kwargs)
    p.grad = torch.tensor(1.0)
    optimizer.step()
    before = p.item()
    optimizer.zero_grad(set_to_none=set_to_none)
    optimizer.step()
    return before, p.item()


@pytest.mark.parametrize("opt_cls, kwargs, moves", [
    (torch.optim.SGD, {"lr": 0.1}, False),
    (torch.optim.SGD, {"lr": 0.1, "weight_decay": 0.5}, True),
    (torch.optim.SGD, {"lr": 0.1, "momentum": 0.9}, True),
    (torch.optim.Adam, {"lr": 0.1}, True),
])
def test_a_zero_gradient_moves_a_parameter_only_with_memory_or_weight_decay(opt_cls, kwargs, moves):
    before, after = _after_zero_grad_step(opt_cls, set_to_none=False, **kwargs)
    assert (after != before) is moves
    before, after = _after_zero_grad_step(opt_cls, set_to_none=True, **kwargs)
    assert after == before  # a None gradient is skipped, whatever the optimizer


def test_weight_decay_shrinks_a_parameter_with_a_zero_gradient_by_lr_times_decay():
    before, after = _after_zero_grad_step(torch.optim.SGD, False, lr=0.1, weight_decay=0.5)
    assert after == pytest.approx(before * (1 - 0.1 * 0.5))


# -- lesson 2 §1: backward() adds, and only into the leaves the loss reaches -----------------
def test_backward_adds_only_into_leaves_the_loss_depends_on():
    used = torch.tensor(2.0, requires_grad=True)
    unused = torch.tensor(5.0, requires_grad=True)
    (used ** 2).backward()
    assert used.grad.item() == 4.0 and unused.grad is None
    used.grad = torch.tensor(10.0)
    (used ** 2).backward()
    assert used.grad.item() == 14.0 and unused.grad is None


# -- lesson 2 §6 and practice l2_p3: where each finite difference is most accurate ----------
@pytest.mark.parametrize("name", sorted(demos.FUNCTIONS))
def test_best_step_is_1e5_to_1e6_for_central_and_1e8_for_forward_differences(name):
    errors = demos.fd_errors(name, plots.EPS_GRID)
    best_central = min(zip(errors["central"], plots.EPS_GRID))[1]
    best_forward = min(zip(errors["forward"], plots.EPS_GRID))[1]
    assert 1e-6 <= best_central <= 1e-5, best_central
    assert 10 ** -8.5 <= best_forward <= 10 ** -7.5, best_forward
    # at ε = 1e-8 the central difference is already far worse than at its best
    at_1e8 = demos.fd_errors(name, [1e-8])["central"][0]
    assert at_1e8 > 10 * min(errors["central"])


# -- demos and their "Try it" prompts, run from the source notebooks' own cells ----------------
SOURCES = source_notebooks()


def _cell(lesson: str, cell_id: str) -> str:
    return next(c.source for c in SOURCES[lesson].cells if c.id == cell_id)


def _run(lesson: str, *cells: str, edits=(), **names) -> dict:
    """Execute demo cells of a lesson in order, in one namespace. ``edits``, a list of
    (cell id, old, new), apply a "Try it" change first; each old text must be in its cell once."""
    namespace = {"torch": torch, "nn": nn, **names}
    for cell_id in cells:
        source = _cell(lesson, cell_id)
        for where, old, new in edits:
            if where == cell_id:
                assert source.count(old) == 1, (cell_id, old)
                source = source.replace(old, new)
        *body, last = source.rstrip().splitlines()
        exec("\n".join(body), namespace)
        namespace["_"] = eval(last, namespace)  # the value the cell displays
    return namespace


@pytest.mark.parametrize("cleared, expected", [(False, [12.0, 24.0, 36.0]), (True, [12.0] * 3)])
def test_adds_demo_and_its_try_it_clearing_inside_the_loop(cleared, expected):
    edit = ("adds-demo", "for call in range(3):\n", "for call in range(3):\n    v.grad = None\n")
    assert _run("03_zeroing_grad", "adds-demo", edits=[edit] if cleared else [])["_"] == expected


def test_a_tensor_used_twice_gets_the_sum_of_both_paths_in_one_pass_or_two_calls():
    assert _run("03_zeroing_grad", "adds-paths-demo")["_"] == (6.0, 2.0, 8.0, 8.0)


def test_an_sgd_step_is_p_minus_lr_times_grad_and_leaves_grad_in_place():
    matches, grad = _run("03_zeroing_grad", "optimizer-demo")["_"]
    assert matches == [True, True] and grad.tolist() == [[1.0, 2.0]]


class _PlotStub:
    def __init__(self):
        self.calls = []

    def training_demo(self, with_clear, without, lr):
        self.calls.append((with_clear, without, lr))


@pytest.mark.parametrize("lr", ["0.05", "0.01", "0.005"])
def test_visible_training_loop_differs_only_by_zero_grad_and_feeds_the_plot(lr):
    stub = _PlotStub()
    _run("03_zeroing_grad", "training-demo", edits=[("training-demo", "lr = 0.05", f"lr = {lr}")],
         widgets=stub)
    (with_clear, without, used_lr), = stub.calls
    assert used_lr == float(lr) and len(with_clear) == len(without) == 40
    # with clearing the loss only ever falls; without, it comes near the fit and swings away
    assert all(b <= a for a, b in zip(with_clear, with_clear[1:]))
    assert sum(b > a for a, b in zip(without, without[1:])) >= 10
    assert min(without) < 0.1 < without[-1]
    if lr == "0.05":  # the notebook's own run is the one the hidden demo used to plot
        assert with_clear == demos.train_regression(True) and without == demos.train_regression(False)


def test_training_plot_shows_the_losses_it_is_given():
    import matplotlib
    import matplotlib.pyplot
    matplotlib.use("Agg")
    fig, caption = plots.training_figure(lr=0.01, with_clear=[3.0, 2.0, 1.0], without=[3.0, 4.0, 5.0])
    assert [list(line.get_ydata()) for ax in fig.axes for line in ax.lines] == [[3, 2, 1], [3, 4, 5]]
    assert "(0.01), 3 steps" in caption and "falls to 1" in caption and "ends at 5" in caption
    assert "2 of 3 steps" in caption
    matplotlib.pyplot.close(fig)


def test_loop_example_try_it_stray_backward_matters_only_when_clearing_at_the_end():
    """The prompt: zero_grad() moved to the end changes nothing on a fresh model; with a stray
    backward() before the loop, the losses from the second batch on change; clearing at the
    top again gives the original losses."""
    cell = "loop-example"
    to_end = [(cell, "    optimizer.zero_grad()\n    prediction", "    prediction"),
              (cell, "    optimizer.step()\n", "    optimizer.step()\n    optimizer.zero_grad()\n")]
    stray = [(cell, "\nlosses = []\n", "\nmodel(data[0][0]).sum().backward()\nlosses = []\n")]
    losses = {name: _run("03_zeroing_grad", cell, edits=edits)["_"]
              for name, edits in {"original": [], "at_end": to_end, "at_top_stray": stray,
                                  "at_end_stray": to_end + stray}.items()}
    original = losses["original"]
    assert losses["at_end"] == original == losses["at_top_stray"]
    with_stray = losses["at_end_stray"]
    assert with_stray[0] == original[0] and all(a != b for a, b in zip(with_stray[1:], original[1:]))


@pytest.mark.parametrize("optimizer, expected", [
    ("torch.optim.Adam([p], lr=0.1)", (0.9, 0.833)),
    ("torch.optim.SGD([p], lr=0.1)", (0.9, 0.9)),
    ("torch.optim.SGD([p], lr=0.1, weight_decay=0.5)", (0.85, 0.8075)),
])
def test_set_to_none_demo_and_its_try_it(optimizer, expected):
    edit = ("set-to-none-demo", "torch.optim.Adam([p], lr=0.1)", optimizer)
    assert _run("03_zeroing_grad", "set-to-none-demo", edits=[edit])["_"] == expected


def test_zero_grad_of_an_optimizer_clears_only_its_own_parameters():
    assert _run("03_zeroing_grad", "zero-grad-scope-demo")["_"] == [
        ("0.weight", False), ("0.bias", False), ("1.weight", True), ("1.bias", True)]


@pytest.mark.parametrize("x, result, grad, grad_fn", [("1.5", 144.0, 192.0, "PowBackward0"),
                                                      ("-0.7", 11.2, -16.0, "NegBackward0")])
def test_control_flow_demo_follows_the_branch_and_loop_that_ran(x, result, grad, grad_fn):
    edit = ("control-flow-demo", "torch.tensor(1.5,", f"torch.tensor({x},")
    out, got_grad, got_fn = _run("02_backward", "control-flow-demo", edits=[edit])["_"]
    assert out == pytest.approx(result) and got_grad == grad and type(got_fn).__name__ == grad_fn


def test_backward_with_gradient_is_the_vector_jacobian_product():
    J, vJ, grad = _run("02_backward", "non-scalar-demo", "vjp-demo")["_"]
    assert torch.equal(J, torch.diag(torch.tensor([2.0, 4.0, 6.0]))) and torch.allclose(vJ, grad)
    # and for a Jacobian that is not diagonal: vᵀJ, not Jv
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    f = lambda u: torch.stack([u[0] * u[1], u[0] + u[1]])  # noqa: E731
    v = torch.tensor([1.0, 10.0])
    f(x).backward(gradient=v)
    jac = torch.autograd.functional.jacobian(f, x.detach())
    assert torch.allclose(x.grad, v @ jac) and not torch.allclose(x.grad, jac @ v)


@pytest.mark.parametrize("moved", [False, True])
def test_step_between_forward_and_backward_trips_the_version_counter(moved):
    cell = "inplace-saved-demo"
    # the "Try it": optimizer.step() moved just below loss.backward()
    edits = [(cell, "optimizer.step()\nversion_after", "version_after"),
             (cell, "    loss.backward()\n", "    loss.backward()\n    optimizer.step()\n")]
    before, after, outcome = _run("04_no_grad", cell, edits=edits if moved else [],
                                  x=torch.randn(3, 4))["_"]
    if moved:
        assert before == after and outcome == "no error"
    else:
        assert after == before + 1
        assert outcome == ("one of the variables needed for gradient computation has been "
                           "modified by an inplace operation")
