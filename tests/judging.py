"""Judging a catalogue entry the way a check does: the kernel's observer runs the student's
function on a judge's scenario, the judge gives the verdict from the observation, and the
verdict reaches the grader as JSON (read as the grader reads it: ``Verdict.from_data``)."""
from __future__ import annotations

from autograder import judges
from autograder.kernel.checks import observer
from autograder.wire import framing
from autograder.exercises import EXERCISES
from autograder.wire.spec import select
from autograder.wire.verdict import Verdict

# catalogue function name (the answer's variable) → the exercise that judges it
EXERCISE_OF = {spec.answer[0]: spec for spec in EXERCISES if spec.kind == "function"}


def judge_function(function: str, student, cases: str = "visible", seed: int | None = None):
    """(verdict, diagnosis) of the first failing scenario, or of the last one; ``seed``
    replaces the public seeds (as the judge's secret does while grading)."""
    spec = EXERCISE_OF[function]
    module = judges.module(spec)
    observe = observer(spec)
    verdict = diagnosis = Verdict(True)
    for index, case in enumerate(select(module.CASES, cases)):
        data = module.scenario(case, case["seed"] if seed is None else seed + 7919 * index)
        observation = observe(student, data, spec.subject)
        verdict = Verdict.from_data(framing.loads(framing.dumps(judges.verdict(module, data, observation).to_data())))
        diagnosis = Verdict.reported_diagnosis(observation.get("diagnosis", {"ok": True}))
        if not verdict.ok:
            break
    return verdict, diagnosis
