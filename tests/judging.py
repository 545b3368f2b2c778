"""Judging a catalogue entry the way a check does: the kernel's observer runs the student's
function on a judge's scenario, the judge gives the verdict from the observation."""
from __future__ import annotations

from autograder.judges import CHECKS, select
from autograder.judges.verdict import Verdict
from autograder.kernel.observers import OBSERVERS

# catalogue function name → the check that judges it
CHECK_OF = {"train": "check_train_loop", "train_accumulate": "check_train_accumulate",
            "freeze_body": "check_freeze_body", "derivative": "check_derivative",
            "numerical_grad": "check_numerical_grad", "weighted_grad": "check_weighted_grad",
            "fit_line": "check_fit_line", "predict": "check_predict", "sgd_step": "check_sgd_step",
            "evaluate": "check_evaluate", "dead_parameters": "check_dead_parameters"}


def judge_function(function: str, student, cases: str = "visible", seed: int | None = None):
    """(verdict, diagnosis) of the first failing scenario, or of the last one; ``seed``
    replaces the public seeds (as the judge's secret does while grading)."""
    spec = CHECKS[CHECK_OF[function]]
    module = spec.module()
    verdict = diagnosis = Verdict(True)
    for index, case in enumerate(select(module.CASES, cases)):
        data = module.scenario(case, case["seed"] if seed is None else seed + 7919 * index)
        observation = OBSERVERS[spec.function](student, data, spec.subject)
        verdict = module.verify(data, observation)
        diagnosis = Verdict.from_data(observation.get("diagnosis", {"ok": True}))
        if not verdict.ok:
            break
    return verdict, diagnosis
