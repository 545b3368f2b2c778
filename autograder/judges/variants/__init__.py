"""Questions of one's own: every graded Quick Check that has a generator here is drawn per
student, so a key can be neither looked up nor passed on.

A *variant* is a question's code, the numbers its options show and the order of its
options, drawn from a seed. Which option is right follows from the code (each family
has variants where different options are right), so knowing the published key, or the
statement that was right for a classmate, tells a student nothing about their own.

* The seed is ``secret_seed(course secret, "variant", assignment, question, student)``:
  only the judge, which reads the course secret from its settings, can compute it.
  Without a course secret or a student id, every student gets the *published* variant,
  the one the English notebook was written around (self-study, Binder).
* ``Variant.shown()`` is what a kernel may see (code, numbers, option order); the key
  never leaves the judge. The instructor's ``autograder variants`` writes each student's
  ``shown()`` next to the released notebook, and while grading the judge hands it to the
  kernel, so the question cell renders the student's own variant in their notebook and
  in their feedback.

The families' modules (``lesson1`` … ``lesson4``) say, per question, which code makes which option
right; ``tests/test_variants.py`` runs every drawn variant's code and checks that exactly
one option is right.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from ...wire.variants import label
from ..seeds import secret_seed

LETTERS = ("a", "b", "c", "d")


@dataclass(frozen=True)
class Variant:
    question: str
    code: str
    order: tuple  # option ids, in the order shown as a, b, c, d
    right: str  # the id of the right option
    params: dict = field(default_factory=dict)  # the numbers the options and the question show
    published: bool = False

    @property
    def key(self) -> str:
        return LETTERS[self.order.index(self.right)]

    @property
    def label(self) -> str:
        return label(self.shown())

    def shown(self) -> dict:
        """What a student's kernel may see of this variant: everything but which option is right."""
        return {"question": self.question, "code": self.code, "order": list(self.order),
                "params": dict(self.params), "published": self.published}


def _families() -> dict:
    from . import lesson1, lesson2, lesson3, lesson4

    return {**lesson1.FAMILIES, **lesson2.FAMILIES, **lesson3.FAMILIES, **lesson4.FAMILIES}


FAMILIES = _families()  # question id → family (``published()``, ``draw(rng)``)
ASSIGNMENT = {"l1": "01_requires_grad", "l2": "02_backward", "l3": "03_zeroing_grad", "l4": "04_no_grad"}


def has_variants(question: str) -> bool:
    return question in FAMILIES


def seed(secret: bytes | None, assignment: str, question: str, student: str | None) -> int | None:
    """The student's seed for one question; None (the published variant) without a secret or an id."""
    if not secret or not student:
        return None
    return secret_seed(secret, "variant", assignment, question, student)


def variant(question: str, seed_: int | None) -> Variant:
    family = FAMILIES[question]
    if seed_ is None:
        return family.published()
    drawn = family.draw(random.Random(seed_))
    return drawn


def of_student(secret: bytes | None, question: str, student: str | None) -> Variant:
    return variant(question, seed(secret, ASSIGNMENT[question[:2]], question, student))
