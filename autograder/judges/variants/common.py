"""What the families share: numbers printed as PyTorch prints them, and shuffled options."""
from __future__ import annotations


def number(x: float) -> str:
    """A float as PyTorch prints a tensor's element: ``3.``, ``0.75``, ``-4.``."""
    text = f"{round(x, 6):g}"
    return text + "." if "." not in text and "e" not in text else text


def plain(x: float) -> str:
    return f"{round(x, 6):g}"


def tensor(values) -> str:
    """``tensor(3.)`` or ``tensor([13., 12.])``."""
    if isinstance(values, (list, tuple)):
        return f"tensor([{', '.join(number(v) for v in values)}])"
    return f"tensor({number(values)})"


def shuffled(rng, ids: tuple) -> tuple:
    order = list(ids)
    rng.shuffle(order)
    return tuple(order)
