"""Quick Check practice questions: a multiple-choice widget with an explanation for every choice.

These are practice: each choice's explanation says whether it is right. The graded
questions are others; their keys live only in the instructor's source notebooks (see
``autograder.judges.quick_check``)."""
from __future__ import annotations

import ipywidgets as widgets

from .text import raw, text

# practice question id → the letter of the best answer; the wording lives in the locale file.
ANSWERS = {
    "l1_q1": "c",
    "l1_q2": "b",
    "l1_q3": "a",
    "l2_q1": "b",
    "l2_q2": "c",
    "l2_q3": "b",
    "l3_q1": "b",
    "l3_q2": "c",
    "l3_q3": "b",
    "l3_q4": "b",
    "l4_q1": "b",
    "l4_q2": "c",
    "l4_q3": "b",
}
LETTERS = ("a", "b", "c", "d")


def explanation(qid: str, letter: str) -> str:
    return raw(f"quiz.{qid}.why_{letter}")


class MultipleChoice(widgets.VBox):
    """One question, its choices as radio buttons, a Check button and the explanation."""

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
        verdict = text("quiz.correct") if letter == ANSWERS[self.qid] else text("quiz.incorrect")
        self.feedback.value = f"<p class='quiz-feedback'><b>{verdict}</b> {explanation(self.qid, letter)}</p>"


def quick_check(*qids: str) -> widgets.VBox:
    return widgets.VBox([MultipleChoice(qid) for qid in qids])
