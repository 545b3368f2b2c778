"""The experiments behind the lesson-3 plots: real PyTorch runs, small enough for Binder.

Each function returns plain numbers, so the plots, their captions and the tests all
read the same results.
"""
from __future__ import annotations

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


def train_regression(clear: bool, steps: int = 40, lr: float = 0.05, seed: int = 0) -> list:
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


def _layer_grad_norms(model: nn.Module, x: torch.Tensor) -> dict:
    model.zero_grad()
    model(x).pow(2).mean().backward()
    return {name: p.grad.norm().item() for name, p in model.named_parameters()
            if name.endswith("weight")}


def dead_relu_net(seed: int = 0):
    """An MLP whose hidden units 0..dead-1 have a bias so negative they never fire."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    with torch.no_grad():
        model[0].bias[:3] = -100.0
    return model, 3


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


def gradient_health(seed: int = 0) -> dict:
    """Per-layer weight-gradient norms: a net with dead units, a healthy and an exploding deep net."""
    gen = torch.Generator().manual_seed(seed)
    dead_model, dead = dead_relu_net(seed)
    dead_norms = _layer_grad_norms(dead_model, torch.randn(32, 4, generator=gen))
    row_norms = dead_model[0].weight.grad.norm(dim=1)
    x = torch.randn(32, 16, generator=gen)
    return {
        "dead_norms": dead_norms,
        "unit_norms": row_norms.tolist(),
        "dead_units": int((row_norms == 0).sum()),
        "hidden_units": row_norms.numel(),
        "expected_dead": dead,
        "healthy_norms": _layer_grad_norms(deep_net(1.0, seed=seed), x),
        "exploding_norms": _layer_grad_norms(deep_net(3.0, seed=seed), x),
    }


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
    """Count the tensors (and bytes) autograd keeps for backward during one forward pass."""
    import time

    counted = {"tensors": 0, "bytes": 0}

    def pack(t):
        counted["tensors"] += 1
        counted["bytes"] += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.set_grad_enabled(grad_enabled):
            start = time.perf_counter()
            model(x)
            counted["seconds"] = time.perf_counter() - start
    return counted


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
