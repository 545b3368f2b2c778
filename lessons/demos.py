"""The experiments behind the lesson-3 plots: real PyTorch runs, small enough for Binder.

Each function returns plain numbers, so the plots, their captions and the tests all
read the same results.
"""
from __future__ import annotations

import math

import torch
from torch import nn


def pile_up(calls: int, w_value: float = 2.0) -> dict:
    """w.grad after each of ``calls`` backward() calls, without and with clearing."""
    w = torch.tensor(w_value, requires_grad=True)
    without = []
    for _ in range(calls):
        (3 * w ** 2).backward()
        without.append(w.grad.item())
    cleared = []
    for _ in range(calls):
        w.grad = None
        (3 * w ** 2).backward()
        cleared.append(w.grad.item())
    return {"without": without, "with": cleared, "w": w_value}


def regression_data(n: int = 64, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 1, generator=gen)
    y = 3.0 * x + 1.0 + 0.1 * torch.randn(n, 1, generator=gen)
    return x, y


TRAINING_STEPS = 200  # long enough to show the uncleared run swing back up at every rate from 0.005 to 0.5


def train_regression(clear: bool, steps: int = TRAINING_STEPS, lr: float = 0.05, seed: int = 0) -> list:
    """Loss per step of a linear regression trained with or without zero_grad()."""
    x, y = regression_data(seed=seed)
    torch.manual_seed(seed)
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        if clear:
            optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def training_summary(with_clear: list, without: list) -> dict:
    """What the loss curves of the cleared and the uncleared run show, as numbers (the plot's
    caption states them, the tests check them). ``late``: the second half of the steps, where
    a run that settles has settled; a run that never clears still swings back up there.

    Measured on the lesson's regression (start 10.3): at lr 0.05 the cleared run ends at 0.0104
    and the uncleared one still climbs back to 10.6 in steps 101-200; at lr 0.005, 1.09 against
    9.22, though the uncleared run dipped to 0.046 (below the cleared run) on the way."""
    steps = len(with_clear)
    late = steps - steps // 2
    return {"steps": steps, "late": late, "first": with_clear[0],
            "final_with": with_clear[-1], "late_with": max(with_clear[-late:]),
            "rises_with": sum(b > a for a, b in zip(with_clear, with_clear[1:])),
            "low_without": min(without), "late_without": max(without[-late:]),
            "rises_without": sum(b > a for a, b in zip(without, without[1:])),
            "finite": all(math.isfinite(v) for v in with_clear + without),
            # back up to at least half the starting loss late in the run: a swing anyone sees
            "swings": max(without[-late:]) >= with_clear[0] / 2}


def deep_net(gain: float, depth: int = 8, seed: int = 0) -> nn.Module:
    """A deep stack of linear layers whose weights have standard deviation gain/√width.

    gain 1 keeps signals (and gradients) about the same size from layer to layer;
    gain 3 multiplies them by about 3 at every layer, so gradients explode.
    """
    torch.manual_seed(seed)
    layers = []
    for _ in range(depth):
        linear = nn.Linear(16, 16)
        nn.init.normal_(linear.weight, std=gain / 16 ** 0.5)
        nn.init.zeros_(linear.bias)
        layers.append(linear)
    return nn.Sequential(*layers)


def layer_gradients(model: nn.Sequential, x: torch.Tensor) -> dict:
    """Per layer (input → output), after one backward pass: the norm of its weight's ``.grad``
    (what an optimizer reads) and of the gradient of the layer's output (what flows back into
    the layer from above; kept with ``retain_grad()``)."""
    model.zero_grad()
    outputs, h = [], x
    for layer in model:
        h = layer(h)
        h.retain_grad()
        outputs.append(h)
    h.pow(2).mean().backward()
    return {"weights": [layer.weight.grad.norm().item() for layer in model],
            "outputs": [out.grad.norm().item() for out in outputs]}


def exploding_gradients(seed: int = 0) -> dict:
    """Two 8-layer nets on the same input, weights well scaled (gain 1) and 3× too large.

    Measured (seed 0): with gain 3 the weights' gradient norms are 3.1e7-1.0e8 on every layer
    (gain 1: 2.1-7.2), in no order; the gradient of the layers' outputs grows from 8.1e2 at
    the last layer to 3.2e6 at the first, about 3.3× a layer."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(32, 16, generator=gen)
    return {"healthy": layer_gradients(deep_net(1.0, seed=seed), x),
            "exploding": layer_gradients(deep_net(3.0, seed=seed), x)}


# -- lesson 2: finite differences against autograd --------------------------------------
FUNCTIONS = {
    "sin(x)": torch.sin,
    "exp(x)": torch.exp,
    "x³": lambda x: x ** 3,
    "tanh(x)": torch.tanh,
}


def autograd_derivative(f, x0: float) -> float:
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    f(x).backward()
    return x.grad.item()


def fd_errors(name: str, eps_values, x0: float = 1.0) -> dict:
    """|numerical − autograd| derivative of a function at x0, for each step size ε (float64)."""
    f = FUNCTIONS[name]
    exact = autograd_derivative(f, x0)
    x = torch.tensor(x0, dtype=torch.float64)
    forward, central = [], []
    for eps in eps_values:
        forward.append(abs(((f(x + eps) - f(x)) / eps).item() - exact))
        central.append(abs(((f(x + eps) - f(x - eps)) / (2 * eps)).item() - exact))
    return {"forward": forward, "central": central, "exact": exact}


# -- lesson 4: what no_grad saves ---------------------------------------------------------
def mlp(width: int = 256) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                         nn.Linear(width, 10))


def saved_for_backward(model: nn.Module, x: torch.Tensor, grad_enabled: bool) -> dict:
    """What recording adds during one forward pass: the tensors autograd saves for backward
    that would otherwise be freed (counted once per storage, seen by a pack hook of
    ``saved_tensors_hooks``). The input batch and the parameters are saved too, but they exist
    with or without recording, so they are not counted: they cost nothing extra.

    For the lesson's 3-layer MLP (256 wide) that is the two ReLU outputs, 2 × batch × 256 × 4
    bytes (131 kB at batch 64), exactly what the allocator still holds after the forward pass
    beyond the output (the profiler's memory events, in tests/test_lesson_claims.py); a count of
    every saved tensor would have said 7 tensors and 600 kB, most of them the weights."""
    import time

    there_anyway = {t.untyped_storage().data_ptr() for t in (x, *model.parameters())}
    kept = {}  # storage address → bytes

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in there_anyway:
            kept[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.set_grad_enabled(grad_enabled):
            start = time.perf_counter()
            model(x)
            seconds = time.perf_counter() - start
    return {"tensors": len(kept), "bytes": sum(kept.values()), "seconds": seconds}


def memory_by_batch(batch_sizes, width: int = 256) -> dict:
    """Bytes saved for backward and forward time, with and without grad, per batch size."""
    model = mlp(width)
    rows = {"grad": [], "no_grad": []}
    for n in batch_sizes:
        x = torch.randn(n, width)
        for mode, enabled in (("grad", True), ("no_grad", False)):
            saved_for_backward(model, x, enabled)  # warm-up
            runs = [saved_for_backward(model, x, enabled) for _ in range(3)]
            rows[mode].append(min(runs, key=lambda run: run["seconds"]))  # least disturbed
    return rows


def dropout_outputs(seed: int = 0) -> dict:
    """The same input through a dropout net in train() and eval() mode, twice each."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    x = torch.ones(1, 4)
    model.train()
    train_runs = [model(x) for _ in range(2)]
    model.eval()
    eval_runs = [model(x) for _ in range(2)]
    return {"train_differ": not torch.equal(*train_runs), "eval_same": torch.equal(*eval_runs),
            "eval_requires_grad": eval_runs[0].requires_grad}
