"""Lesson 2's graph of scalars (lessons.value_graph): the backward pass traced node by node, and
exercise (d)'s first step, which runs a student's own ``_backward`` of each node on it.

The classes here are what a student writes in the exercise cell: the notebook's own class (the
model solution), the release's stubs, and the mistakes of the grader's catalogue for ``*``.
"""
from __future__ import annotations

import json
import shutil
import textwrap

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
import tomllib  # noqa: E402
from helpers import source_notebooks  # noqa: E402

from lessons import graph_view, value_graph  # noqa: E402
from lessons.text import _LESSONS  # noqa: E402

SOLVED = next(c.source for c in source_notebooks()["02_backward"].cells if c.id == "value_backward")
RIGHT_MUL = """
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
"""


def student_class(mul: str = RIGHT_MUL, add: str | None = None, init_grad: str = "0.0") -> type:
    """The exercise cell with the ``_backward`` of ``*`` (and of ``+``, if given) replaced by the
    lines a student wrote, ``backward()`` still the release's stub."""
    source = SOLVED.split("    def backward(self):")[0] + "    def backward(self):\n        raise NotImplementedError()\n"
    start, end = source.index("### BEGIN SOLUTION"), source.index("### END SOLUTION") + len("### END SOLUTION")
    source = source[:start] + textwrap.dedent(mul).strip().replace("\n", "\n" + " " * 12) + source[end:]
    if add is not None:
        source = source.replace("self.grad += out.grad\n            other.grad += out.grad", add, 1)
    source = source.replace("self.grad = 0.0", f"self.grad = {init_grad}", 1)
    namespace: dict = {}
    exec(source, namespace)
    return namespace["Value"]


def caption(widget) -> str:
    return widget.caption.value


def test_each_step_is_one_nodes_backward_and_a_node_passes_on_only_once_complete():
    nodes = value_graph.build()
    steps = value_graph.trace(nodes)
    assert len(steps) == 2 + sum(n.op is not None for n in nodes)
    assert steps[0].grads == [0.0] * len(nodes) and steps[1].grads[-1] == 1.0
    for k, step in enumerate(steps[2:], start=2):
        ran = step.ran
        # what the node passes on is its final gradient: nothing reaches it any more
        assert steps[k - 1].grads[ran] == steps[-1].grads[ran]
        assert all(s.grads[ran] == steps[-1].grads[ran] for s in steps[k:])
    assert steps[-1].grads == value_graph.torch_grads(nodes)


def test_another_graph_is_traced_as_pytorch_computes_it():
    """The trace is the chain rule for any graph of + and *, a node used by two others too."""
    nodes = value_graph.build((("a", 1.5), ("b", -2.0)), ("c = a * b", "d = c + b", "e = c * d", "f = e + c"))
    assert value_graph.trace(nodes)[-1].grads == pytest.approx(value_graph.torch_grads(nodes), rel=1e-12)


def test_the_chain_rules_captions_state_each_steps_numbers():
    widget = value_graph.ValueGraph()
    assert widget.slider.value == 0 and "every grad is 0" in caption(widget)
    widget.slider.value = 1
    assert "loss.grad = 1" in caption(widget)
    widget.slider.value = 2
    assert "e.grad += -3 · 1 → -3; e.grad += -3 · 1 → -6" in caption(widget)
    widget.slider.value = widget.slider.max
    assert "w.grad += 3 · (-6) → -18" in caption(widget) and "b.grad = -6" in caption(widget)
    assert "PyTorch" in caption(widget)


def test_the_picture_follows_the_slider():
    widget = value_graph.ValueGraph()
    pictures = set()
    for k in range(widget.slider.max + 1):
        widget.slider.value = k
        pictures.add(bytes(widget.plot.value))
    assert len(pictures) == widget.slider.max + 1


def boxes(widget) -> dict:
    """Each node's box on the figure: its name → (its label, its fill colour)."""
    found = {}
    for t in widget.figure.texts:
        box = t.get_bbox_patch()
        if box is not None and "\ndata " in t.get_text():
            found[t.get_text().split("\n")[0]] = (t.get_text(), matplotlib.colors.to_hex(box.get_facecolor()))
    return found


def test_a_right_multiplication_matches_at_every_step_before_backward_exists():
    widget = value_graph.ValueGraph(student_class())
    assert widget.slider.value == widget.slider.max  # the student's numbers at the end first
    assert "at each of the 5 steps" in caption(widget)
    shown = boxes(widget)
    assert shown["w"][0] == graph_view.value_label("w", 2.0, -18.0)
    assert not any(fill == graph_view.VALUE_COLORS["wrong"] for _, fill in shown.values())


@pytest.mark.parametrize("mul, step, node, got, expected", [
    ("self.grad = other.data * out.grad\nother.grad = self.data * out.grad", 2, "e", -3, -6),  # = for +=
    ("self.grad += self.data * out.grad\nother.grad += other.data * out.grad", 5, "w", -12, -18),  # own value
    ("self.grad += other.data\nother.grad += self.data", 5, "w", 3, -18),  # no out.grad
    ("self.grad += out.grad\nother.grad += out.grad", 2, "e", 2, -6),  # +'s rule
])
def test_a_wrong_multiplication_is_shown_where_it_first_differs(mul, step, node, got, expected):
    widget = value_graph.ValueGraph(student_class(mul))
    said = caption(widget)
    assert f"at step {step}:" in said and f"{node}.grad is {got}, where the chain rule gives {expected}" in said
    widget.slider.value = step
    shown = boxes(widget)
    assert shown[node][1] == graph_view.VALUE_COLORS["wrong"]
    assert shown["loss"][1] != graph_view.VALUE_COLORS["wrong"]


def test_the_release_stub_says_which_operation_is_not_written_and_draws_what_it_reached():
    widget = value_graph.ValueGraph(student_class("raise NotImplementedError()"))
    assert "through * yet: at step 2, loss._backward() still raises NotImplementedError" in caption(widget)
    shown = boxes(widget)  # the last step it got through: the seed
    assert shown["loss"][0] == graph_view.value_label("loss", 9.0, 1.0)


def test_a_wrong_add_or_a_wrong_start_is_named_too():
    widget = value_graph.ValueGraph(student_class(add="self.grad += out.grad\n            other.grad = 0.0"))
    assert "at step 3:" in caption(widget) and "n.grad is 0" in caption(widget) and "_backward of +" in caption(widget)
    widget = value_graph.ValueGraph(student_class(init_grad="None"))
    assert "every grad must start at 0.0" in caption(widget)


def test_an_error_of_the_students_class_is_shown_as_text():
    widget = value_graph.ValueGraph(student_class("raise ValueError('<b>no</b>')"))
    assert "raised ValueError: &lt;b&gt;no&lt;/b&gt;" in caption(widget)
    widget = value_graph.ValueGraph(lambda data: 1 / 0)
    assert "could not build this graph: ZeroDivisionError" in caption(widget) and not widget.plot.value


def test_a_grader_run_runs_nothing_and_draws_nothing(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    calls = []

    class Watched:
        def __init__(self, data):
            calls.append(data)

    widget = value_graph.ValueGraph(Watched)
    widget.slider.value = 1
    assert calls == [] and not widget.plot.value and "figure" not in vars(widget)


def test_every_word_of_the_widget_comes_from_the_locale_file(tmp_path, monkeypatch):
    """A translation in which every text of [value_graph] starts with «XX»: the slider, the
    title and the caption say it; the boxes hold only names, numbers and attribute names."""
    with open(_LESSONS.locale_dir / "en.toml", "rb") as f:
        english = tomllib.load(f)
    lines = ["[value_graph]"] + [f"{key} = {json.dumps('XX' + value)}" for key, value in english["value_graph"].items()]
    (tmp_path / "sv.toml").write_text("\n".join(lines), encoding="utf-8")
    shutil.copy(_LESSONS.locale_dir / "en.toml", tmp_path / "en.toml")
    type(_LESSONS).catalogue.cache_clear()
    monkeypatch.setattr(_LESSONS, "locale_dir", tmp_path)
    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", "sv")
    try:
        for widget in (value_graph.ValueGraph(), value_graph.ValueGraph(student_class())):
            assert widget.slider.description.startswith("XX") and caption(widget).startswith("<p class='lesson-caption'>XX")
            words = [t.get_text() for t in widget.figure.texts]
            title = [w for w in words if "\ndata " not in w and w not in "+*"]
            assert len(title) == 1 and title[0].startswith("XX")
    finally:
        type(_LESSONS).catalogue.cache_clear()


@pytest.mark.slow
def test_the_chinese_graph_has_every_glyph(monkeypatch):
    """The widget in Chinese (its title and slider are in the lesson's language) draws without a
    glyph missing. Needs a CJK font, as tests/test_widgets.py's test of the other plots does."""
    import warnings

    import lessons.fonts

    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", "zh")
    lessons.fonts.families.cache_clear()
    try:
        lessons.fonts.use()
        assert len(lessons.fonts.families()) > 1, "no CJK font found: apt-get install fonts-noto-cjk"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            widget = value_graph.ValueGraph()
            for k in range(widget.slider.max + 1):
                widget.slider.value = k
            value_graph.ValueGraph(student_class("raise NotImplementedError()"))
        assert "第 5 步" in caption(widget)
        assert [str(w.message) for w in caught if "missing from font" in str(w.message)] == []
    finally:
        monkeypatch.delenv("AUTOGRAD_LESSONS_LANG")
        lessons.fonts.families.cache_clear()
        lessons.fonts.use()
