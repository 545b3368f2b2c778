"""Quick Checks: the graded questions' own variants, and the practice questions' widget.

``question(qid)`` shows a graded question's code and options (``autograder.wire.questions``):
the student's own variant (from the course's ``variants.json`` while studying, from the judge
while grading), or the published one. Its words come from the grader's locale files; only code
and numbers are generated. The key is never here. The pages show the grader's own drawing of
it, never this kernel's output (``RedrawQuestions``).

Practice questions are not graded, so their answers live here, with an explanation for
every choice (``MultipleChoice``).
"""
from __future__ import annotations

import ipywidgets as widgets
from IPython.display import display

from autograder.kernel import connection
from autograder.wire.questions import question_data, question_html, question_markdown  # noqa: F401

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
    "l3_p5": "c",
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


def question(qid: str) -> None:
    """Show this student's variant of the graded question ``qid`` (or of an exercise's code)."""
    shown = connection.judge().variant(qid)
    if shown is None:
        raise ValueError(f"{qid!r} is not a generated question")
    display(question_data(qid, shown), raw=True)
