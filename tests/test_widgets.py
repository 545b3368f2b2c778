"""The lesson widgets redraw one persistent figure: the pictures and captions must still be
right for every control value, the same value must give the same picture whatever came
before it, nothing may pile up over many redraws, and every word on a plot must come from
the locale file. (Redraw speed is measured in benchmarks/bench_widgets.py, not here.)"""
from __future__ import annotations

import gc
import io
import json
import math
import shutil

import matplotlib
import tomllib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from PIL import Image  # noqa: E402

from lessons import demos, graph_view, plots, widgets  # noqa: E402
from lessons.text import _LESSONS  # noqa: E402


def pixels(png: bytes) -> np.ndarray:
    assert png.startswith(b"\x89PNG")
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def count_colour(png: bytes, colour: str) -> int:
    rgb = np.array([round(255 * c) for c in matplotlib.colors.to_rgb(colour)])
    return int((pixels(png) == rgb).all(axis=-1).sum())


def live_figures() -> int:
    gc.collect()
    return sum(type(o) is Figure for o in gc.get_objects())


# -- lesson 3: the pile-up ----------------------------------------------------------------
def backward_calls(calls: int, w_value: float = 2.0) -> float:
    """w.grad after ``calls`` backward() calls on 3·w², never cleared: computed here, by hand."""
    w = torch.tensor(w_value, requires_grad=True)
    for _ in range(calls):
        (3 * w ** 2).backward()
    return w.grad.item()


@pytest.mark.parametrize("calls", [1, 4, 10])
def test_pile_up_caption_states_real_backward_results(calls):
    w = widgets.GradPileUp(calls=3)
    w.slider.value = calls
    single = backward_calls(1)
    assert single == 12.0
    assert f"w.grad = {backward_calls(calls):g} ({calls} × {single:g})" in w.caption.value
    assert f"keeps it at {single:g}" in w.caption.value


def test_pile_up_picture_follows_the_slider_and_only_the_slider():
    w = widgets.GradPileUp(calls=3)
    first = bytes(w.plot.value)
    w.slider.value = 8
    eight = bytes(w.plot.value)
    assert eight != first
    # more calls: more of the red line and its markers are painted over the fixed axes
    assert count_colour(eight, "tab:red") > count_colour(first, "tab:red") > 0
    for value in (1, 10, 5, 3):
        w.slider.value = value
    assert bytes(w.plot.value) == first, "the same value must give the same picture, whatever came before"
    # and the same picture as a figure drawn from scratch
    assert bytes(w.plot.value) == plots.PileUpPlot(w.slider.max).draw(3)[0]


def test_sliders_redraw_while_dragged():
    sliders = [widgets.GradPileUp().slider, widgets.FiniteDifference().slider,
               widgets.NoGradMemory(max_batch=16).slider]
    assert all(s.continuous_update for s in sliders)


# -- lesson 2: finite differences -----------------------------------------------------------
def by_hand(eps: float) -> tuple[float, float]:
    x, exact = torch.tensor(1.0, dtype=torch.float64), math.cos(1.0)
    forward = abs(((torch.sin(x + eps) - torch.sin(x)) / eps).item() - exact)
    central = abs(((torch.sin(x + eps) - torch.sin(x - eps)) / (2 * eps)).item() - exact)
    return forward, central


def test_fd_caption_and_marker_follow_the_slider():
    w = widgets.FiniteDifference("sin(x)", eps=1e-6)
    at_1e6 = bytes(w.plot.value)
    for eps in (1e-2, 1e-9, 1e-13):
        w.slider.value = eps
        forward, central = by_hand(eps)
        assert f"off by {forward:.2e}, the central difference by {central:.2e}" in w.caption.value
        assert bytes(w.plot.value) != at_1e6
    w.slider.value = 1e-6
    assert bytes(w.plot.value) == at_1e6


def test_fd_function_change_redraws_the_curves():
    w = widgets.FiniteDifference("sin(x)", eps=1e-6)
    sine = bytes(w.plot.value)
    w.function.value = "exp(x)"
    assert "f = exp(x)" in w.caption.value and bytes(w.plot.value) != sine
    w.function.value = "sin(x)"
    assert bytes(w.plot.value) == sine


# -- lesson 4: memory saved for backward ------------------------------------------------------
def saved_by_hand(batch: int) -> tuple[int, int]:
    """Tensors and bytes the recorded graph keeps alive beyond the input and the weights, read
    here from the graph itself (each node's ``_saved_*`` attributes), not through the pack hook
    the widget uses: one storage counted once."""
    model = demos.mlp(256)
    x = torch.randn(batch, 256)
    there_anyway = {t.untyped_storage().data_ptr() for t in (x, *model.parameters())}
    out = model(x)
    kept, stack = {}, [out.grad_fn]
    while stack:  # an autograd graph has no cycles; a node reached twice adds the same storages
        node = stack.pop()
        if node is None:
            continue
        for name in dir(node):
            value = getattr(node, name) if name.startswith("_saved_") else None
            if isinstance(value, torch.Tensor) and value.untyped_storage().data_ptr() not in there_anyway:
                kept[value.untyped_storage().data_ptr()] = value.untyped_storage().nbytes()
        stack += [child for child, _ in node.next_functions]
    return len(kept), sum(kept.values())


def test_memory_caption_states_what_recording_adds():
    w = widgets.NoGradMemory(max_batch=256)
    for batch in (4, 64, 1024):
        w.slider.value = batch
        tensors, nbytes = saved_by_hand(batch)
        assert (tensors, nbytes) == (2, 2 * batch * 256 * 4)  # the two ReLU outputs, float32
        assert (f"batch size {batch}, recording kept {tensors} intermediate results ({nbytes / 1e6:.2f} MB)"
                in w.caption.value)
        assert "no_grad() it kept 0.00 MB" in w.caption.value and "not counted" in w.caption.value


def test_memory_is_measured_once_per_batch_size(monkeypatch):
    measured = []
    real = demos.saved_for_backward

    def counting(model, x, grad_enabled):
        measured.append(len(x))
        return real(model, x, grad_enabled)

    monkeypatch.setattr(demos, "saved_for_backward", counting)
    w = widgets.NoGradMemory(max_batch=16)
    assert sorted(set(measured)) == plots.BATCH_SIZES
    count, pictures = len(measured), set()
    for batch in plots.BATCH_SIZES * 2:
        w.slider.value = batch
        pictures.add(bytes(w.plot.value))
    assert len(measured) == count, "moving the slider must not measure again"
    assert len(pictures) == len(plots.BATCH_SIZES)


# -- lesson 1: the graph --------------------------------------------------------------------
def test_graph_picture_is_reused_only_for_the_same_graph():
    w = widgets.GraphExplorer("a * b + c")
    first, caption = bytes(w.plot.value), w.caption.value
    w.flags["a"].value = False
    assert bytes(w.plot.value) != first and "a (leaf)" not in w.caption.value
    w.flags["a"].value = True
    assert (bytes(w.plot.value), w.caption.value) == (first, caption)
    w.pictures.clear()  # drawn again from scratch: the same picture
    w.flags["b"].value = True
    w.flags["b"].value = False
    assert bytes(w.plot.value) == first
    w.expression.value = "(a * b).sum()"
    assert bytes(w.plot.value) != first and "SumBackward0" in w.caption.value


def test_graph_shape_ignores_node_identities_but_not_structure():
    a, b = (torch.tensor([1.0, 2.0], requires_grad=True) for _ in range(2))
    names = {"a": a, "b": b}
    results = [a * b + a, a * b + a]  # both alive: their grad_fn nodes are different objects
    one, again = (graph_view.build(r, names) for r in results)
    assert one.labels.keys() != again.labels.keys() and one.shape() == again.shape()
    assert graph_view.build(a * b + b, names).shape() != one.shape()
    assert graph_view.build(a + b * a, names).shape() != one.shape()


def test_graph_keeps_a_bounded_number_of_pictures(monkeypatch):
    monkeypatch.setattr(widgets.GraphExplorer, "KEPT_PICTURES", 3)
    w = widgets.GraphExplorer("a * b + c")
    for k in range(6):
        w.expression.value = "a" + " * b" * (k + 1)
    assert len(w.pictures) == 3


# -- all of them ----------------------------------------------------------------------------
def every_widget():
    return [widgets.GradPileUp(), widgets.FiniteDifference(), widgets.NoGradMemory(max_batch=16),
            widgets.GraphExplorer()]


def move_each(ws, times: int) -> None:
    pile, fd, memory, graph = ws
    for i in range(times):
        pile.slider.value = 1 + i % 10
        fd.slider.value = 10.0 ** (-14 + 0.25 * (i % 52))
        memory.slider.value = plots.BATCH_SIZES[i % 6]
        graph.flags["abc"[i % 3]].value = not graph.flags["abc"[i % 3]].value


def test_no_figure_piles_up_over_many_redraws():
    """(20 moves of each control after the first 3: a figure kept per redraw, or per value seen,
    would add 20 or more; 60 moves took three times as long and could show no more than that.)"""
    ws = every_widget()
    move_each(ws, 3)
    before, pyplot_figures = live_figures(), plt.get_fignums()
    move_each(ws, 20)
    assert live_figures() <= before  # (figures of earlier tests may be collected meanwhile: never more)
    assert plt.get_fignums() == pyplot_figures  # the widgets never go through pyplot


def test_a_grader_run_builds_no_figure(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    before = live_figures()
    ws = every_widget()
    move_each(ws, 2)
    assert live_figures() == before and not any(w.plot.value for w in ws)


@pytest.fixture
def marked_language(tmp_path, monkeypatch):
    """A translation (standing in for Swedish: a language must be one of the course's) in
    which every plot text of the widgets' sections starts with «XX»."""
    with open(_LESSONS.locale_dir / "en.toml", "rb") as f:
        english = tomllib.load(f)
    lines = []
    for section in ("pileup", "fd", "memory", "graph"):
        lines.append(f"[{section}]")
        for key, value in english[section].items():  # (a table of plural forms: each form marked)
            marked = {form: "XX" + text for form, text in value.items()} if isinstance(value, dict) else "XX" + value
            lines.append(f"{key} = {json.dumps(marked)}" if isinstance(marked, str)
                         else f"{key} = {{ " + ", ".join(f"{f} = {json.dumps(t)}" for f, t in marked.items()) + " }")
    (tmp_path / "sv.toml").write_text("\n".join(lines), encoding="utf-8")
    shutil.copy(_LESSONS.locale_dir / "en.toml", tmp_path / "en.toml")
    type(_LESSONS).catalogue.cache_clear()
    monkeypatch.setattr(_LESSONS, "locale_dir", tmp_path)
    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", "sv")
    yield
    type(_LESSONS).catalogue.cache_clear()


def words_on(fig: Figure) -> list:
    """Titles, axis labels and legend entries: every word on a figure except tick numbers."""
    words = [t.get_text() for t in fig.texts]
    for ax in fig.axes:
        words += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        if ax.get_legend():
            words += [t.get_text() for t in ax.get_legend().get_texts()]
    return [w for w in words if w]


def test_every_word_on_the_plots_comes_from_the_locale_file(marked_language):
    pile, fd, memory, graph = every_widget()
    figures = [pile.figure.fig, fd.figure.fig, memory.figure.fig, graph.figure]
    for fig in figures:
        words = words_on(fig)
        assert words and all(w.startswith("XX") or w.endswith("Backward0") for w in words), words
    # the graph's title, its result and its two leaves (a and c require grad), and the controls' names
    assert sum(w.startswith("XX") for w in words_on(graph.figure)) == 4
    controls = [pile.slider, fd.slider, fd.function, memory.slider, graph.preset, graph.expression,
                *graph.flags.values()]
    assert all(c.description.startswith("XX") for c in controls)
    assert all(w.caption.value.startswith("<p class='lesson-caption'>XX") for w in (pile, fd, memory, graph))


@pytest.mark.slow
def test_plots_of_the_chinese_lessons_have_every_glyph(monkeypatch):
    """Every widget's plot, in Chinese, drawn without a missing glyph (matplotlib warns for
    each character no font of its list has). Needs a CJK font: make test installs Debian's."""
    import warnings

    import lessons.fonts
    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", "zh")
    lessons.fonts.families.cache_clear()
    try:
        lessons.fonts.use()
        assert len(lessons.fonts.families()) > 1, "no CJK font found: apt-get install fonts-noto-cjk"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for widget in (widgets.GradPileUp(calls=3), widgets.FiniteDifference(), widgets.NoGradMemory(),
                           widgets.GraphExplorer()):
                widget.redraw()
            from lessons import plots
            for fig, _ in (plots.training_figure(steps=5), plots.exploding_figure()):
                fig.canvas.draw()
        missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
        assert missing == []
    finally:
        monkeypatch.delenv("AUTOGRAD_LESSONS_LANG")
        lessons.fonts.families.cache_clear()
        lessons.fonts.use()
