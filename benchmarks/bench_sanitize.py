"""Benchmark: the grader's own work making one student's outputs safe for the pages (SafeForPages).

SafeForPages runs on every autograded notebook (and again on its feedback). Its HTML cleaning
(bleach, on html5lib) costs more than the size of what it cleans for some markup: html5lib
keeps every unclosed formatting element and every open element, and looks through them at
each new tag. This prints the CPU seconds SafeForPages takes on an honest lesson-3 notebook
(its question cells' HTML, as the grader draws them, and a plot) and on hostile ones, each
outputs of at most LimitOutputSize's 100,000 characters, and the ratio of each to the honest
one, measured in the same run (median of three, each in a fresh pass).

Hostile notebooks:
* ``unclosed_b``: two outputs of 98,000 characters of ``<b>`` (the fourth round's case);
* ``unclosed_b_attrs``: 40 outputs of 90,000 characters of ``<b id=N>`` (no two alike, so
  html5lib's limit of three alike open formatting elements never applies);
* ``many_attributes``: 20 outputs of 100 tags of 200 attributes each;
* ``reopened``: 40 outputs of ``<b id=N><p>`` then ``x</p>`` (every paragraph reopens every
  formatting element: the cleaned HTML is far larger than what came in);
* ``nested_divs``: 20 outputs of 20,000 ``<div>``;
* ``budget_*``: the worst the budget lets through (each output as many tags as are parsed, the
  notebook as many tags or characters), in the costliest shapes above.

Usage: python benchmarks/bench_sanitize.py [--rounds 3] [--case unclosed_b ...]
"""
from __future__ import annotations

import argparse
import resource
import statistics
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.instructor.passes.safe_for_pages import (  # noqa: E402
    MAX_TAGS, NOTEBOOK_CHARS, NOTEBOOK_TAGS, SafeForPages)

NAME = "03_zeroing_grad"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def honest() -> nbformat.NotebookNode:
    """Lesson 3 as released, each question cell showing its (published) question as the grader
    draws it, and a plot after every test cell."""
    from autograder.judges import variants
    from lessons import quiz

    nb = nbformat.read(ROOT / "release" / NAME / f"{NAME}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        qid = cell.source.partition('quiz.question("')[2].partition('")')[0]
        if qid in variants.FAMILIES:
            shown = variants.variant(qid, None).shown()
            cell.outputs = [nbformat.v4.new_output("display_data", data={
                "text/html": quiz.question_html(qid, shown), "text/plain": quiz.question_markdown(qid, shown)})]
        elif cell.metadata.get("nbgrader", {}).get("grade"):
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="✓ passed\n"),
                            nbformat.v4.new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"})]
    return nb


def hostile(outputs: list) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("display(...)")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/html": html, "text/plain": "x"})
                    for html in outputs]
    nb.cells = [cell]
    return nb


def cases() -> dict:
    ids = "".join(f"<b id={i}>" for i in range(9_000))[:90_000]
    attributes = " ".join(f"a{j}" for j in range(200))
    reopened = "".join(f"<b id={i}><p>" for i in range(120)) + "x</p>" * 120
    return {"unclosed_b": hostile(["<b>" * 32_666] * 2),
            "unclosed_b_attrs": hostile([ids] * 40),
            "many_attributes": hostile(["".join(f"<b {attributes} z{i}>" for i in range(100))] * 20),
            "reopened": hostile([reopened] * 40),
            "nested_divs": hostile(["<div>" * 20_000] * 20),
            # the worst the budget lets through: as many tags per output, tags and characters per
            # notebook as SafeForPages parses, in the costliest shapes above
            "budget_b_attrs": hostile(["".join(f"<b id={i}>" for i in range(MAX_TAGS))] * (NOTEBOOK_TAGS // MAX_TAGS)),
            "budget_attributes": hostile(["".join(f"<b {' '.join(f'a{j}' for j in range(60))} z{i}>"
                                              for i in range(MAX_TAGS))[:NOTEBOOK_CHARS]]),
            "budget_reopened": hostile(["".join(f"<b id={i}><p>" for i in range(MAX_TAGS // 3))
                                        + "x</p>" * (MAX_TAGS // 3)] * (NOTEBOOK_TAGS // MAX_TAGS))}


def seconds(nb, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        copy = nbformat.from_dict(nb)
        start = cpu()
        SafeForPages().preprocess(copy, {})
        times.append(cpu() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--case", action="append", help="only these hostile notebooks (default: all)")
    args = parser.parse_args()
    base = seconds(honest(), args.rounds)
    print(f"honest lesson 3: {base:.3f} s of CPU")
    for name, nb in cases().items():
        if args.case and name not in args.case:
            continue
        size = sum(len(o.data["text/html"]) for o in nb.cells[0].outputs)
        spent = seconds(nb, args.rounds)
        print(f"{name}: {size:,} characters of HTML, {spent:.3f} s of CPU, {spent / base:.1f} x the honest notebook")


if __name__ == "__main__":
    main()
