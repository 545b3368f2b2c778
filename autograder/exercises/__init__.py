"""Every exercise, in one folder of its own, and the registry of them all.

An exercise's folder, ``exercises/<name>/``, holds everything that is that exercise's own, each
file on its side of the trust boundary (``tests/test_architecture.py`` holds them there):

=================  ==============  ===========================================================
file               side            what it is
=================  ==============  ===========================================================
``spec.py``        the wire        its ``EXERCISE`` (``wire.spec.Exercise``) and what its
                                   scenarios mean; data only: it crosses between kernel and
                                   judge, and imports no torch (the registry imports it
                                   everywhere, the grader's own processes included)
``scenario.py``    the wire        if the scenario's data builds torch objects (a net, tensors):
                                   the builders the kernel and the judge both use
``judge.py``       the judge       ``CASES``, ``scenario(case, seed)`` and ``verify(data,
                                   observation)`` (a function), or ``verify_value`` (an answer)
``observe.py``     the kernel      ``observe(student, data, name)``: runs the student's function
                                   on a scenario and reports what it did (a function exercise)
``locale/``        its words       ``<lang>.toml`` in every language: its messages
                                   (``[grader.<section>]``, read into the grader's,
                                   ``autograder.messages``) and its three tiers of hints
                                   (``[lessons.hints.<name>]``, read into the lessons')
``catalogue.py``   the tests       code a student could write, with the mistake each must get;
                                   it imports nothing of the project
=================  ==============  ===========================================================

What several exercises share stays in its side's package: scenarios of lesson 2's functions,
lesson 4's models and the training loops in ``wire.scenarios``, the training loops' judge in
``judges.training_loop`` and their observer in ``kernel.loop``.

``ALL`` (every ``EXERCISE``, the Quick Checks' ``check_choice`` included), ``EXERCISES`` (in
lesson order), ``BY_NAME`` and ``CHECKS`` (every function a test cell may call) are derived
from the folders: adding an exercise adds a folder, and nothing here changes. Importing this
package imports the specs only, never a judge or an observer.
"""
from __future__ import annotations

import importlib
from pathlib import Path


def _declared() -> list:
    folders = sorted(p for p in Path(__file__).parent.iterdir() if (p / "spec.py").is_file())
    found = [importlib.import_module(f"{__name__}.{folder.name}.spec").EXERCISE for folder in folders]
    for folder, exercise in zip(folders, found):
        if exercise.name != folder.name:
            raise ValueError(f"exercises/{folder.name}/spec.py declares {exercise.name!r}: the folder is the exercise's name")
    return sorted(found, key=lambda e: (e.lesson, e.letter, e.name))


ALL = _declared()  # the exercises and the Quick Checks' check
EXERCISES = [e for e in ALL if e.lesson]  # the exercises, lesson by lesson, (a), (b), ...
BY_NAME = {e.name: e for e in ALL}
CHECKS = {e.check: e for e in ALL}
