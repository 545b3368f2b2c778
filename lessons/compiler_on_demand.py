"""Optimizers without torch's compiler until something compiles.

torch's optimizers import its compiler (``torch._dynamo``) only to tell it what not to compile:
an optimizer's methods marked ``torch._disable_dynamo`` import it the first time one is called
(every optimizer calls ``add_param_group`` as it is made), and ``step`` imports it at every call
to mark two graph breaks. So the first ``torch.optim.SGD(...)`` of a kernel imported the
compiler: 0.86 s of CPU on a course machine, as long as importing torch itself (0.83 s), in
every kernel of lessons 3 and 4, every grading run's fork server and every Validate of them.
The lessons never compile.

``install()`` changes nothing while the compiler is imported, and nothing of what an optimizer
computes; until the compiler is imported (nothing can be compiling before), it calls these
functions without it:
* each ``torch._disable_dynamo`` function of ``torch.optim`` gets what that wrapper looks for
  first (the function's ``__dynamo_disable``): a stand-in that calls the function itself (what
  the wrapper's result does outside a compiled region), and once the compiler is imported makes
  torch's own wrapper and hands over to it for good;
* each optimizer's ``step`` (torch's ``_use_grad``: gradients on only for a differentiable
  optimizer, a graph break before and after) sets and restores the gradient mode itself while
  the compiler is not imported, and is torch's own ``_use_grad`` once it is.
Where torch's code is not the code this module was written against (another torch version),
``install()`` changes nothing.
"""
from __future__ import annotations

import functools
import sys

_MARK = "__dynamo_disable"  # the attribute torch._disable_dynamo caches its wrapper in


class UntilCompiled:
    """What ``torch._disable_dynamo``'s wrapper calls for ``fn`` (see the module's docstring)."""

    def __init__(self, fn, recursive: bool):
        self.fn, self.recursive = fn, recursive

    def __call__(self, *args, **kwargs):
        dynamo = sys.modules.get("torch._dynamo")
        if dynamo is None or not hasattr(dynamo, "disable"):
            return self.fn(*args, **kwargs)
        disabled = dynamo.disable(self.fn, self.recursive, wrapping=False)  # what torch would have made
        setattr(self.fn, _MARK, disabled)
        return disabled(*args, **kwargs)


def _wrapper_code():
    """The code object of ``torch._disable_dynamo``'s wrapper, to recognise the functions it wrapped."""
    import torch

    return torch._disable_dynamo(lambda: None).__code__


def wrapped(function, code) -> list:
    """``(fn, recursive)`` of every ``torch._disable_dynamo`` wrapper that ``function`` is or
    holds in its closure (an optimizer's ``step`` and the functional optimizers hold one)."""
    found, seen, todo = [], set(), [function]
    while todo:
        f = todo.pop()
        f = getattr(f, "__func__", f)
        if id(f) in seen or not hasattr(f, "__code__"):
            continue
        seen.add(id(f))
        cells = {name: cell.cell_contents for name, cell in zip(f.__code__.co_freevars, f.__closure__ or ())
                 if _filled(cell)}
        if f.__code__ is code and callable(cells.get("fn")):
            found.append((cells["fn"], bool(cells.get("recursive", True))))
        else:
            todo.extend(v for v in cells.values() if callable(v))
            todo.extend(v for v in (getattr(f, "__wrapped__", None),) if v is not None)
    return found


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # (a closure's variable not set yet)
        return False
    return True


# the names torch's ``_use_grad`` (torch/optim/optimizer.py, torch 2.13) uses, and nothing else
USE_GRAD_NAMES = ("torch._dynamo", "cast", "Optimizer", "is_grad_enabled", "set_grad_enabled", "defaults", "_dynamo",
                  "graph_break")


def step_until_compiled(use_grad):
    """An optimizer's ``step`` that is torch's ``use_grad`` once the compiler is imported and,
    before, does what it does but the graph breaks (which do nothing outside a compiled region)."""
    import torch

    step = use_grad.__wrapped__

    @functools.wraps(step)
    def _use_grad(*args, **kwargs):
        if "torch._dynamo" in sys.modules:
            return use_grad(*args, **kwargs)
        previous = torch.is_grad_enabled()
        try:
            torch.set_grad_enabled(args[0].defaults["differentiable"])
            return step(*args, **kwargs)
        finally:
            torch.set_grad_enabled(previous)

    _use_grad.until_compiled = True
    return _use_grad


def _optimizer_modules() -> list:
    import torch.optim  # noqa: F401

    return [m for name, m in list(sys.modules.items()) if name.startswith("torch.optim") and m is not None]


def install() -> int:
    """Give ``torch.optim``'s functions their stand-ins (see the module's docstring), unless the
    compiler is already imported. Returns how many functions were changed (0: none, also where
    torch's code is not the one this module knows)."""
    if "torch._dynamo" in sys.modules:
        return 0
    from torch.optim.optimizer import _use_grad_for_differentiable

    wrapper, use_grad = _wrapper_code(), _use_grad_for_differentiable(lambda self: None).__code__
    if use_grad.co_names != USE_GRAD_NAMES:
        return 0
    given = 0
    for module in _optimizer_modules():
        for value in list(vars(module).values()):
            if isinstance(value, type) and getattr(vars(value).get("step"), "__code__", None) is use_grad:
                value.step = step_until_compiled(vars(value)["step"])
                given += 1
            members = vars(value).values() if isinstance(value, type) else [value]
            for member in list(members):
                if not callable(member) and not isinstance(member, (staticmethod, classmethod)):
                    continue
                for fn, recursive in wrapped(member, wrapper):
                    if getattr(fn, _MARK, None) is None:
                        setattr(fn, _MARK, UntilCompiled(fn, recursive))
                        given += 1
    return given
