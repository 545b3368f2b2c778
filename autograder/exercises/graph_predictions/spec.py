"""Lesson 1, exercise (a): predict ``requires_grad``, ``is_leaf`` and the ``grad_fn`` of tensors."""
from ...wire.spec import Exercise

EXERCISE = Exercise(
    "graph_predictions", lesson=1, letter="a", kind="value", answer=("predictions",),
    cells=("graph_predictions", "graph_predictions_tests"),
    task=("ex-a", "ex-a-answer"), messages="graph", variants="l1_graph_predictions",
    params=("answers", "cases", "variant"), secret=("variant",), graded_parts=("z", "d"),
    summary="Exercise 1(a): requires_grad, is_leaf and the grad_fn of given tensors.")
