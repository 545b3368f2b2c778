"""Student values as JSON data, and back: what crosses from the kernel to the judge.

``encode`` runs in the student's kernel. It reads values through the base types' own
methods (``float.__float__``, not ``float()``), so a subclass that lies in ``__float__``,
``__eq__`` or ``__torch_function__`` is read as what it really holds, or becomes
opaque. Anything else (functions, modules, huge tensors) is named by its type only.
``decode`` runs in the judge: it builds plain Python values and CPU tensors, never
calling anything the data names, and nothing whose cost grows faster than the data: a set
holds strings (their hashes are the process's secret) or at most ``MAX_HASHED`` numbers,
whose hashes anyone can choose (10 000 integers that all hash alike took 0.38 s to put in a
set, while the judge answered nobody else). Dictionary keys are strings. The format is JSON,
never pickle.
"""
from __future__ import annotations

import math

MAX_ITEMS = 10_000  # elements per list, dict or tensor
MAX_TEXT = 2_000  # characters per string
MAX_DEPTH = 8
MAX_HASHED = 64  # numbers in one decoded set (an honest answer's set: a few names)


class Opaque:
    """A value the judge cannot see inside, known by its type's name."""

    def __init__(self, type_name: str):
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<{self.type_name}>"

    def __eq__(self, other) -> bool:
        return isinstance(other, Opaque) and other.type_name == self.type_name

    __hash__ = None


def _number(value: float):
    if math.isfinite(value):
        return value
    return {"$float": repr(value)}


def _tensor(value) -> dict | None:
    import torch

    with torch._C.DisableTorchFunctionSubclass():
        if value.numel() > MAX_ITEMS or value.is_complex():
            return None
        plain = torch.Tensor.detach(value).to("cpu")
        if plain.dtype.is_floating_point:
            values = [_number(v) for v in plain.to(torch.float64).reshape(-1).tolist()]
        else:
            values = plain.reshape(-1).tolist()
        return {"$tensor": values, "shape": list(plain.shape), "dtype": str(plain.dtype),
                "requires_grad": bool(torch.Tensor.requires_grad.__get__(value))}


def encode(value, depth: int = 0):
    """JSON data for ``value`` (see the module docstring)."""
    if value is None or isinstance(value, bool) and type(value) is bool:
        return value
    if value is Ellipsis:  # an answer left as the release's ``...``
        return {"$ellipsis": True}
    if depth > MAX_DEPTH:
        return {"$opaque": type(value).__name__}
    if isinstance(value, bool):
        return bool(int.__int__(value))
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return _number(float.__float__(value))
    if isinstance(value, str):
        return str.__str__(value)[:MAX_TEXT]
    if type(value).__module__ == "numpy" and hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return encode(value.item(), depth + 1)
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is always there in this course
        torch = None
    if torch is not None and isinstance(value, torch.Tensor):
        return _tensor(value) or {"$opaque": type(value).__name__}
    if isinstance(value, (tuple, list)):
        items = tuple.__iter__(value) if isinstance(value, tuple) else list.__iter__(value)
        out = []
        for item in items:
            if len(out) >= MAX_ITEMS:
                break
            out.append(encode(item, depth + 1))
        return {"$tuple": out} if isinstance(value, tuple) else out
    if isinstance(value, (set, frozenset)):
        items = sorted(set.__iter__(value) if isinstance(value, set) else frozenset.__iter__(value), key=repr)
        return {"$set": [encode(item, depth + 1) for item in items[:MAX_ITEMS]]}
    if isinstance(value, dict):
        out = {}
        for key, item in dict.items(value):
            if type(key) is not str or len(out) >= MAX_ITEMS:
                return {"$opaque": type(value).__name__}
            out[key] = encode(item, depth + 1)
        return {"$dict": out}
    return {"$opaque": type(value).__name__}


def decode(data, depth: int = 0):
    """Plain values and tensors from ``encode``'s output; anything unexpected is opaque."""
    if depth > MAX_DEPTH + 1:
        return Opaque("too deep")
    if data is None or type(data) in (bool, int, str):
        return data
    if type(data) is float:
        return data
    if type(data) is list:
        return [decode(item, depth + 1) for item in data[:MAX_ITEMS]]
    if type(data) is dict:
        if "$float" in data and data["$float"] in ("nan", "inf", "-inf"):
            return float(data["$float"])
        if "$tuple" in data and type(data["$tuple"]) is list:
            return tuple(decode(item, depth + 1) for item in data["$tuple"][:MAX_ITEMS])
        if "$set" in data and type(data["$set"]) is list:
            return _decode_set([decode(item, depth + 1) for item in data["$set"][:MAX_ITEMS]])
        if "$dict" in data and type(data["$dict"]) is dict:
            return {str(k): decode(v, depth + 1) for k, v in list(data["$dict"].items())[:MAX_ITEMS]}
        if "$tensor" in data:
            return _decode_tensor(data)
        if data.get("$ellipsis") is True:
            return Ellipsis
        if "$opaque" in data:
            return Opaque(str(data["$opaque"])[:100])
    return Opaque("malformed")


def _decode_set(items: list):
    """A set of strings, or of at most ``MAX_HASHED`` numbers (see the module docstring)."""
    if not all(type(i) in (str, int, float, bool, type(None)) for i in items):
        return Opaque("set")
    if sum(type(i) is not str for i in items) > MAX_HASHED:
        return Opaque("set of many numbers")
    return set(items)


def _decode_tensor(data: dict):
    import torch

    try:
        values = [float(v["$float"]) if type(v) is dict else v for v in data["$tensor"][:MAX_ITEMS]]
        if not all(type(v) in (int, float, bool) for v in values):
            return Opaque("malformed tensor")
        dtype = getattr(torch, str(data.get("dtype", "torch.float32")).removeprefix("torch."), None)
        if not isinstance(dtype, torch.dtype):
            return Opaque("malformed tensor")
        shape = [int(n) for n in data.get("shape", [len(values)])]
        tensor = torch.tensor(values, dtype=torch.float64 if dtype.is_floating_point else None)
        tensor = tensor.to(dtype).reshape(shape)
    except (TypeError, ValueError, RuntimeError, KeyError, AttributeError):
        return Opaque("malformed tensor")
    if data.get("requires_grad") is True and tensor.dtype.is_floating_point:
        tensor.requires_grad_(True)
    return tensor


def roundtrip(value):
    """What the judge will see of ``value``: used by the kernel to judge exactly that."""
    return decode(encode(value))
