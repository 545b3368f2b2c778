"""Student values as JSON data (judges.data): what the judge sees is what the values really
hold, whatever their classes claim."""
from __future__ import annotations

import json
import math

import numpy as np
import torch

from autograder.wire.codec import Opaque, decode, encode, roundtrip


class LyingFloat(float):
    def __float__(self):
        return 12.0

    def __eq__(self, other):
        return True

    __hash__ = float.__hash__


class LyingList(list):
    def __iter__(self):
        return iter([1.0, 2.0])

    def __len__(self):
        return 2


class LyingTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.Tensor.tolist:
            return [12.0]
        return super().__torch_function__(func, types, args, kwargs or {})


def test_plain_values_survive_as_json():
    value = {"a": (True, None, "MulBackward0"), "b": [1, 2.5, -0.0], "c": float("inf"), "d": ...}
    data = encode(value)
    assert json.loads(json.dumps(data)) == data
    back = decode(json.loads(json.dumps(data)))
    assert back["a"] == (True, None, "MulBackward0") and back["b"] == [1, 2.5, -0.0]
    assert math.isinf(back["c"]) and back["d"] is Ellipsis
    assert roundtrip({"b", "a"}) == {"a", "b"} and roundtrip(frozenset([1, 2])) == {1, 2}


def test_tensors_keep_values_shape_dtype_and_grad_flag():
    t = torch.arange(6.0).reshape(2, 3).requires_grad_()
    back = roundtrip(t)
    assert torch.equal(back, t.detach()) and back.dtype == torch.float32 and back.requires_grad
    assert roundtrip(torch.tensor([1, 2])).dtype == torch.int64
    assert roundtrip(np.float64(2.5)) == 2.5 and type(roundtrip(np.float64(2.5))) is float


def test_lying_objects_are_read_as_what_they_hold():
    assert roundtrip(LyingFloat(1.5)) == 1.5 and type(roundtrip(LyingFloat(1.5))) is float
    assert roundtrip(LyingList([7.0, 8.0, 9.0])) == [7.0, 8.0, 9.0]
    lying = torch.tensor([3.0]).as_subclass(LyingTensor)
    assert roundtrip(lying).tolist() == [3.0]


def test_anything_else_is_opaque_and_bounded():
    assert roundtrip(print) == Opaque("builtin_function_or_method")
    assert roundtrip(torch.zeros(20_000)) == Opaque("Tensor")
    assert len(roundtrip("x" * 10 ** 6)) == 2000
    deep = []
    for _ in range(50):
        deep = [deep]
    json.dumps(encode(deep))  # bounded depth, no recursion error


def test_decode_never_trusts_the_shape_of_the_data():
    for junk in [{"$tensor": "abc"}, {"$tensor": [1, "x"]}, {"$tensor": [1.0], "dtype": "torch.nn"},
                 {"$tensor": [1.0, 2.0], "shape": [3]}, {"$tuple": 5}, {"unknown": 1}, {"$float": "1e999"}]:
        assert isinstance(decode(junk), Opaque), junk


def test_decode_builds_no_set_of_hashes_a_student_chose():
    """A number's hash is its value modulo 2**61 - 1: 10 000 integers that all hash alike took
    0.38 s to put in a set, while the judge answered nobody else. Strings' hashes are the
    process's secret: a set of strings stays a set; a set of more than ``MAX_HASHED`` numbers is
    opaque (no answer is one)."""
    from autograder.wire.codec import MAX_HASHED

    alike = [1 + i * (2 ** 61 - 1) for i in range(10_000)]
    assert len({hash(n) for n in alike}) == 1
    assert decode({"$set": alike}) == Opaque("set of many numbers")
    assert decode({"$set": [float(n) for n in alike[:200]]}) == Opaque("set of many numbers")
    assert decode({"$set": alike[:MAX_HASHED]}) == set(alike[:MAX_HASHED])
    names = [f"name{i}" for i in range(10_000)]
    assert decode({"$set": names}) == set(names)
    assert decode({"$dict": {n: 1 for n in names}}) == {n: 1 for n in names}  # keys are strings
