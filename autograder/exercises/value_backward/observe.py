"""Exercise 2(d) in the kernel: build the judge's graphs with the student's ``Value`` class and
report the gradients its backward() left, and the order in which it visited the nodes."""
from __future__ import annotations

from ...kernel import running
from ...wire.codec import encode
from ...wire.verdict import Verdict


MAX_CALLS = 500  # the _backward() calls recorded per graph (a recursion may make many)


def _recording(node, index: int, calls: list) -> None:
    """Make ``node._backward`` note ``index`` in ``calls`` each time it runs, so the judge
    sees the order in which the student's backward() visited the nodes."""
    original = getattr(node, "_backward", None)
    if not callable(original):
        return

    def recorded(*args, **kwargs):
        if len(calls) < MAX_CALLS:
            calls.append(index)
        return original(*args, **kwargs)

    try:
        node._backward = recorded
    except (AttributeError, TypeError):  # a class that refuses it is judged by its gradients alone
        return


def observe(student, data: dict, name: str) -> dict:
    """Build the judge's graph with the student's ``Value`` class, run ``backward()`` on its
    output, and report every node's data and grad and the order of the ``_backward()`` calls."""
    if not isinstance(student, type):
        return {"error": Verdict.fail("not_callable", "value_backward.not_class", name=name).to_data()}
    graph, calls = data["nodes"], []

    def run():
        built = []
        for index, (_, op, inputs, value) in enumerate(graph):
            if op is None:
                built.append(student(value))
            else:
                left, right = (built[i] for i in inputs)
                built.append(left + right if op == "+" else left * right)
                _recording(built[-1], index, calls)
        built[-1].backward()
        return [node.data for node in built], [node.grad for node in built]

    result, exc = running.attempt(run)
    if isinstance(exc, NotImplementedError):  # one of the three parts is still the release's stub
        return {"error": Verdict.fail("not_implemented", "value_backward.not_written", name=name).to_data()}
    if exc is not None:
        return {"error": running.error_verdict(exc, name).to_data()}
    values, grads = result
    return {"data": encode(values), "grads": encode(grads), "calls": list(calls)}
