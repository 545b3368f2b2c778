"""The declaration of an exercise: everything the rest of the system derives from it.

One ``Exercise`` per exercise, in ``autograder/exercises/<name>/spec.py`` beside what its
scenarios mean. From it come the registry of checks (``autograder.exercises.CHECKS``, which
the judge reads a test cell against), the ``check_<name>`` function the notebooks call
(``kernel.checks``), the ``exercises.<name>`` object with ``check()`` and ``hint()``
(``lessons.exercises``), its judge (``exercises/<name>/judge.py``) and, for a function, the
observer that runs the student's function in the kernel (``exercises/<name>/observe.py``).
Points live where nbgrader keeps them, in the notebook's test cell.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Exercise:
    name: str  # the one name: check_<name>, exercises.<name>, hints.<name>, its folder exercises/<name>/
    lesson: int
    letter: str  # its place in the lesson: exercise 3(c) is lesson 3, letter "c"
    kind: str  # "function": the student writes a function the kernel runs on scenarios; "value": an answer
    answer: tuple  # the notebook variables the answer is read from (several: read as a dict)
    cells: tuple  # (answer cell, test cell): their nbgrader grade ids (a practice exercise: cell ids)
    messages: str  # its section of the grader's locale files
    summary: str  # what it checks, in one line (the check function's docstring)
    # the ids of the markdown cells that state its task: English in the source notebook, every
    # other language in the ``[task]`` table of its folder's locale files (``lessons.prose``)
    task: tuple = ()
    params: tuple = ()  # the check function's parameters (default: its subject, then ``cases``)
    subject: str = ""  # the parameter that holds the answer (default: the function's name, or ``answers``)
    secret: tuple = ()  # parameters only the judge may see (never sent to a kernel)
    judge: str = ""  # its judge module (default ``autograder.exercises.<name>.judge``)
    # "module.function", the function that observes a student's function in the kernel (default
    # ``autograder.exercises.<name>.observe.observe``)
    observer: str = ""
    hints: bool = True  # has three tiers of hints (``[lessons.hints.<name>]`` in its folder's locale files)
    # an ungraded practice exercise under the lesson's "Going further": its check cell is a plain
    # code cell, so the judge answers it with the public scenarios and it is worth no points
    practice: bool = False
    # its family of per-student variants (``judges.variants``; a value exercise whose code differs
    # per student): the judge passes the student's variant to ``verify_value`` as ``variant``, a
    # parameter declared ``secret``, so a student's own call of the graded half is only recorded
    variants: str = ""
    # a value exercise's answers that the judge alone checks in a course (the student's own
    # variant; the hidden test): a visible check there leaves them to grading and says so,
    # while a student working alone is told whether each of them is right too
    graded_parts: tuple = ()
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self):
        subject = self.subject or (self.answer[0] if self.kind == "function" else "answers")
        defaults = {"subject": subject, "params": self.params or (subject, "cases"),
                    "judge": self.judge or f"autograder.exercises.{self.name}.judge",
                    "observer": self.observer or (f"autograder.exercises.{self.name}.observe.observe"
                                                  if self.kind == "function" else "")}
        for name, value in defaults.items():
            object.__setattr__(self, name, value)

    @property
    def check(self) -> str:
        """The function test cells call."""
        return f"check_{self.name}"


def select(table: dict, cases: str) -> list:
    """The entries of a ``{"visible": [...], "hidden": [...]}`` table for ``visible``,
    ``hidden`` or ``all``."""
    if cases == "all":
        return table["visible"] + table["hidden"]
    if cases not in table:
        raise ValueError(f"cases must be 'visible', 'hidden' or 'all', not {cases!r}")
    return table[cases]
