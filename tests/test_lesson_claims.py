"""What the lessons' prose, hints and grader messages claim about PyTorch, run with PyTorch.

Each test states one claim the text makes and checks it on real tensors, so a sentence
that stops being true (or a PyTorch release that changes the behaviour) fails here.
"""
from __future__ import annotations

import pytest
import torch
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
    practice = raw("quiz.l3_q4.why_a")
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
