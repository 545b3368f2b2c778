"""Benchmark for the lesson widgets: how long a plot takes to follow its control.

For each widget, ``--changes`` value changes as a student's drag makes them (the slider
stepping through its values, the graph's checkboxes ticked in turn); each one is timed
from setting the control's value to the new picture and caption being in the widget. The
budget is 50 ms, so that a plot keeps up with a dragged slider.

Measured in a real kernel (ipykernel, so every picture also goes out as a comm message) on
one thread (``torch.set_num_threads(1)``), as on Binder (~1 CPU). Each round starts a fresh
kernel; the figures of all rounds are printed, so their spread shows how much the machine's
load moved them (the load average is printed too: run it when the machine is quiet).

The baseline, measured in the same kernel, is the old way of drawing: a fresh figure for
every change, laid out and fully drawn, with its data computed (for the memory widget:
measured) again.

Usage: python benchmarks/bench_widgets.py [--rounds 3] [--changes 30] [--no-baseline]
  --no-baseline times only the widgets' own redraws, through their public controls; with an
  older ``lessons`` first on PYTHONPATH it measures that version the same way.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

BUDGET_MS = 50.0
HERE = Path(__file__).resolve().parent


# -- inside the kernel ---------------------------------------------------------------------
def sweep(values: list, start: int, changes: int) -> list:
    """``changes`` values as a drag makes them: from ``start`` to one end, back to the
    other end, and so on, one step at a time."""
    out, i, step = [], start, 1
    while len(out) < changes:
        if not 0 <= i + step < len(values):
            step = -step
        i += step
        out.append(values[i])
    return out


def timed(change, values) -> list:
    """Milliseconds of ``change(value)`` for each value."""
    times = []
    for value in values:
        start = time.perf_counter()
        change(value)
        times.append((time.perf_counter() - start) * 1e3)
    return times


def setter(control):
    def change(value):
        control.value = value
    return change


def toggler(flags: dict):
    """Tick or untick the boxes a, b, c in turn (the value is the box's name)."""
    def change(name):
        flags[name].value = not flags[name].value
    return change


def cold(widget, change):
    """The same change with the graph widget's pictures forgotten: every graph drawn anew."""
    def change_cold(value):
        widget.pictures.clear()
        change(value)
    return change_cold


def pile_up_case(widgets, plots, changes):
    w = widgets.GradPileUp(calls=3)
    values = sweep(list(range(w.slider.min, w.slider.max + 1)), 2, changes)
    return w, setter(w.slider), values, lambda v: plots.PileUpPlot(w.slider.max).draw(v)


def fd_case(widgets, plots, changes):
    w = widgets.FiniteDifference("sin(x)", eps=1e-6)
    grid = [10.0 ** (k / 4) for k in range(-56, -3)]
    values = sweep(grid, grid.index(min(grid, key=lambda e: abs(e - 1e-6))), changes)
    return w, setter(w.slider), values, lambda v: plots.FiniteDifferencePlot().draw("sin(x)", v)


def memory_case(widgets, plots, changes):
    w = widgets.NoGradMemory(max_batch=256)
    values = sweep(list(w.slider.options), list(w.slider.options).index(256), changes)
    return w, setter(w.slider), values, lambda v: plots.MemoryPlot().draw(v)


def graph_case(widgets, plots, changes):
    import torch

    from lessons import graph_view
    from lessons.text import text
    w = widgets.GraphExplorer("a * b + c")
    values = ["abc"[i % 3] for i in range(changes)]
    flags = {name: box.value for name, box in w.flags.items()}  # the baseline's own copy

    def fresh(name):  # the graph after the same toggle, drawn on a new figure
        flags[name] = not flags[name]
        names = {n: torch.tensor([1.0, 2.0], requires_grad=flag) for n, flag in flags.items()}
        graph = graph_view.build(eval("a * b + c", {"torch": torch}, dict(names)), names)
        fig = plots.new_figure(7, 2)
        graph_view.draw(graph, text("graph.title", expression="a * b + c"), fig)
        return plots.png(fig)

    return w, toggler(w.flags), values, fresh


CASES = {"pile-up (GradPileUp)": pile_up_case, "ε (FiniteDifference)": fd_case,
         "memory (NoGradMemory)": memory_case, "graph (GraphExplorer)": graph_case}


def measure(changes: int, baseline: bool) -> dict:
    """Run in the kernel: {case: {"widget": [ms...], "cold": [...], "baseline": [...]}}."""
    import torch
    torch.set_num_threads(1)
    from lessons import plots, widgets
    results = {}
    for name, case in CASES.items():
        widget, change, values, fresh = case(widgets, plots, changes)
        timed(change, values[:3])  # warm-up: first draws, font caches
        row = {"widget": timed(change, values)}
        if hasattr(widget, "pictures"):
            row["cold"] = timed(cold(widget, change), values)
        if baseline:
            timed(fresh, values[:2])
            row["baseline"] = timed(fresh, values)
        results[name] = row
    return results


# -- outside: start kernels, collect, print --------------------------------------------------
def run_in_kernel(changes: int, baseline: bool) -> dict:
    from jupyter_client.manager import start_new_kernel

    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    km, kc = start_new_kernel(kernel_name="python3", env=env)
    try:
        lines = []

        def collect(msg):
            if msg["msg_type"] == "stream":
                lines.append(msg["content"]["text"])
            elif msg["msg_type"] == "error":
                lines.append("\n".join(msg["content"]["traceback"]))

        code = (f"import sys, json; sys.path.insert(0, {str(HERE)!r}); import bench_widgets; "
                f"print('RESULT' + json.dumps(bench_widgets.measure({changes}, {baseline})))")
        kc.execute_interactive(code, output_hook=collect, timeout=600)
        text = "".join(lines)
        if "RESULT" not in text:
            raise RuntimeError(text)
        return json.loads(text.split("RESULT", 1)[1])
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def ms(values: list) -> str:
    return f"{statistics.median(values):6.1f} {max(values):6.1f}"


def report(rounds: list) -> None:
    print(f"\nredraw time in ms (median max over each round's changes); budget {BUDGET_MS:.0f} ms median")
    print(f"{'widget':24} {'round':>5} {'median':>6} {'max':>6}  {'within':6}  "
          f"{'cold':>13}  {'fresh figure':>13}  {'ratio':>6}")
    for name in rounds[0]:
        for r, result in enumerate(rounds, 1):
            row = result[name]
            median = statistics.median(row["widget"])
            line = f"{name:24} {r:5} {ms(row['widget'])}  {'yes' if median <= BUDGET_MS else 'NO':6}  "
            line += f"{ms(row['cold']) if 'cold' in row else '':>13}  "
            if "baseline" in row:
                base = statistics.median(row["baseline"])
                line += f"{ms(row['baseline'])}  {base / median:5.1f}x"
            print(line)
        medians = [statistics.median(result[name]["widget"]) for result in rounds]
        print(f"{'':24} spread of the round medians: {min(medians):.1f}–{max(medians):.1f} ms")
    print("cold: the graph widget with its pictures forgotten before each change (every graph drawn anew);"
          "\nfresh figure: the old way, a new figure per change; ratio: fresh-figure median / widget median")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--changes", type=int, default=30)
    parser.add_argument("--no-baseline", action="store_true")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"({os.cpu_count()} CPUs); {args.rounds} rounds × {args.changes} changes per widget")
    rounds = []
    for r in range(args.rounds):
        rounds.append(run_in_kernel(args.changes, not args.no_baseline))
        print(f"round {r + 1} done; load average {os.getloadavg()[0]:.2f}", flush=True)
    report(rounds)


if __name__ == "__main__":
    main()
