"""Quick Checks: the graded questions' own variants, and the practice questions' widget.

``question(qid)`` shows a graded question's code and options: the student's own variant
(from the course's ``variants.json`` while studying, from the judge while grading, so the
feedback shows it too), or the published one. Its words come from the grader's locale
files; only code and numbers are generated. The key is never here.

Practice questions are not graded, so their answers live here, with an explanation for
every choice (``MultipleChoice``).
"""
from __future__ import annotations

import html
import re

import ipywidgets as widgets
from IPython.display import display

from autograder import messages
from autograder.kernel import connection
from autograder.wire.variants import label

from .text import raw, text

# practice question id → the letter of the best answer; the wording lives in the locale file.
PRACTICE_ANSWERS = {
    "l1_p1": "c",
    "l1_p2": "d",
    "l1_p3": "a",
    "l2_p1": "b",
    "l2_p2": "c",
    "l2_p3": "d",
    "l3_p1": "a",
    "l3_p2": "c",
    "l3_p3": "b",
    "l3_p4": "d",
    "l4_p1": "a",
    "l4_p2": "d",
    "l4_p3": "b",
}
LETTERS = ("a", "b", "c", "d")


def explanation(qid: str, letter: str) -> str:
    return raw(f"quiz.{qid}.why_{letter}")


class MultipleChoice(widgets.VBox):
    """One practice question, its choices as radio buttons, a Check button and the explanation."""

    def __init__(self, qid: str):
        self.qid = qid
        self.choices = widgets.RadioButtons(
            options=[(f"{letter}) {raw(f'quiz.{qid}.{letter}')}", letter) for letter in LETTERS],
            value=None, layout=widgets.Layout(width="auto"))
        self.button = widgets.Button(description=text("quiz.check"), button_style="primary")
        self.feedback = widgets.HTML()
        self.button.on_click(lambda _: self.reveal())
        self.button.add_class("quiz-check")
        super().__init__([widgets.HTML(f"<b>{raw(f'quiz.{qid}.question')}</b>"),
                          self.choices, self.button, self.feedback])
        self.add_class("quiz-question")

    def reveal(self) -> None:
        letter = self.choices.value
        if letter is None:
            self.feedback.value = text("quiz.choose")
            return
        right = letter == PRACTICE_ANSWERS[self.qid]
        verdict = text("quiz.correct") if right else text("quiz.incorrect")
        self.feedback.value = f"<p class='quiz-feedback'><b>{verdict}</b> {explanation(self.qid, letter)}</p>"


def quick_check(*qids: str) -> widgets.VBox:
    return widgets.VBox([MultipleChoice(qid) for qid in qids])


def _parts(qid: str, shown: dict) -> tuple:
    """(note, given, code, [(letter, text)]) of a variant, in the reader's language; option
    texts are Markdown (code in backticks)."""
    params, literals = shown["params"], shown["params"].get("literals", {})
    if shown.get("missing"):
        note = messages.text("quiz.variant_missing")
    else:
        note = "" if shown.get("published") else messages.text("quiz.variant", label=label(shown))
    given = messages.text(f"quiz.{qid}.given", **params) if messages.has(f"quiz.{qid}.given") else ""
    options = [(letter, f"`{literals[option]}`" if option in literals else
                messages.text(f"quiz.{qid}.{option}", **params))
               for letter, option in zip(LETTERS, shown["order"])]
    return note, given, shown["code"], options


def question_markdown(qid: str, shown: dict) -> str:
    """A graded question's variant as Markdown: what is given, the code, the options."""
    note, given, code, options = _parts(qid, shown)
    parts = [f"*{note}*" if note else "", given, f"```python\n{code}```",
             "\n".join(f"- **{letter})** {said}" for letter, said in options)]  # (an exercise's code has none)
    return "\n\n".join(part for part in parts if part)


def _inline(text: str) -> str:
    """Markdown's inline code as HTML, everything else escaped."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))


def question_html(qid: str, shown: dict) -> str:
    """The same as HTML, in the few tags a graded notebook's pages keep (``SafeForPages``), so
    the feedback shows the student's own question as their notebook did."""
    note, given, code, options = _parts(qid, shown)
    parts = [f"<p><em>{_inline(note)}</em></p>" if note else "", f"<p>{_inline(given)}</p>" if given else "",
             f"<pre><code>{html.escape(code, quote=False)}</code></pre>",
             "<ul>" + "".join(f"<li><b>{letter})</b> {_inline(said)}</li>" for letter, said in options) + "</ul>"
             if options else ""]
    return "".join(parts)


def question(qid: str) -> None:
    """Show this student's variant of the graded question ``qid`` (or of an exercise's code)."""
    shown = connection.judge().variant(qid)
    if shown is None:
        raise ValueError(f"{qid!r} is not a generated question")
    markdown = question_markdown(qid, shown)
    display({"text/html": question_html(qid, shown), "text/markdown": markdown, "text/plain": markdown}, raw=True)
