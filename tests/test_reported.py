"""What a kernel reports as a failure is checked by the judge against the message it names
(``wire.reported``): the messages a kernel gives are all declared, with every field's type and
range, and anything else (a number no template can take, a message nested past any reason,
another message's key, a field no message has) is refused like any forged report; rendering
never raises, whatever a verdict holds."""
from __future__ import annotations

import ast
import json
import math
import string
from pathlib import Path

import pytest
from helpers import ROOT

from autograder import judges, messages
from autograder.instructor.judging import server as judge_server
from autograder.kernel import errors, running
from autograder.wire import framing, reported
from autograder.exercises import EXERCISES
from autograder.wire.verdict import Verdict, nested

MALFORMED = Verdict(False, "malformed", "judge.malformed")
MALFORMED_TEXT = messages.render("judge.malformed", {}, "en")
WHERE = {"$key": "general.where", "fields": {"line": 7, "code": "optimizer.step()"}}
STEP = {"step": 2, "where": "line 7: `optimizer.step()`", "used": "batches 1 + 2", "expected": "batch 2",
        "backward_where": WHERE, "accum": 1}


def failure(key, mistake="crashed", **fields):
    return {"ok": False, "mistake": mistake, "key": key, "fields": fields}


def deep(levels: int) -> dict:
    value = "x"
    for _ in range(levels):
        value = {"$key": "loop.list_holding", "fields": {"type": value}}
    return value


# what a forged kernel sends as its failure, by class; each must be refused
FORGED = {
    "huge count (plural)": failure("loop.step_count", "step_count", got=10 ** 400, count=10 ** 400, batches=4,
                                   expected=4, where="x", rule={"$key": "loop.rule_batch"}),
    "huge float (:.6g)": failure("loop.losses_values", "losses_values", batch=1, got=10 ** 400, expected=1.0),
    "huge line": failure("loop.crashed", error="E", text="t", where={"$key": "general.where",
                                                                    "fields": {"line": 10 ** 400, "code": "c"}}),
    "negative step": failure("loop.cleared_once", "cleared_once", **dict(STEP, step=-5)),
    "nan step": failure("loop.cleared_once", "cleared_once", **dict(STEP, step=math.nan)),
    "inf count": failure("loop.losses_length", "losses_length", got=math.inf, count=math.inf, expected=4),
    "bool for a number": failure("loop.cleared_once", "cleared_once", **dict(STEP, step=True)),
    "string for a number": failure("loop.losses_values", "losses_values", batch=1, got="1e400", expected=1.0),
    "deep nesting": failure("loop.losses_not_list", "losses_not_list", got=deep(60)),
    "nesting of another message": failure("loop.never_stepped", "never_stepped",
                                          unit={"$key": "judge.malformed", "fields": {}}),
    "giant string": failure("loop.crashed", error="E", where="w", text="x" * 3_000_000),
    "giant class name": failure("loop.crashed", error="E" * 100_000, where="w", text="t"),
    "a key no kernel gives": failure("quiz.right", "wrong_choice", question=1, title="Quick Check 1"),
    "an instructor's message": failure("cli.bad_secret", reason="<b>"),
    "a template key": failure("general.where", line=1, code="c"),
    "the malformed message itself": failure("judge.malformed"),
    "an unknown key": failure("no.such.key"),
    "a field no message has": failure("loop.crashed", error="E", where="w", text="t", evil=1),
    "a missing field": failure("loop.crashed", error="E"),
    "fields not a dict": {"ok": False, "mistake": "crashed", "key": "loop.crashed", "fields": ["E", "w", "t"]},
    "a mistake that is markup": failure("loop.crashed", "<script>x</script>", error="E", where="w", text="t"),
    "a long mistake": failure("loop.crashed", "x" * 500, error="E", where="w", text="t"),
    "a pass": {"ok": True, "mistake": "", "key": "", "fields": {}},
    "not a verdict": ["loop.crashed"],
}
# honest shapes a kernel sends (each as the kernel's own code makes it, below, too): kept as they are
HONEST = {
    "format braces are text": failure("loop.crashed", error="ValueError", where="w", text="{x:>99999999}{0}"),
    "a diverging loss": failure("loop.losses_values", "losses_values", batch=2, got=math.nan, expected=0.5),
    "an infinite loss": failure("loop.losses_values", "losses_values", batch=2, got=math.inf, expected=0.5),
    "a nested rule": failure("loop.step_count", "step_count", got=5, count=5, batches=4, expected=4, where=WHERE,
                             rule={"$key": "loop.rule_group", "fields": {"accum": 2}}),
    "a list of ints": failure("loop.losses_not_list", "losses_not_list",
                              got={"$key": "loop.list_holding", "fields": {"type": "int"}}),
    "a step": failure("loop.cleared_once", "cleared_once", **STEP),
}


def over_the_wire(data):
    """``data`` as the judge reads it from a kernel: one JSON line."""
    return framing.loads(framing.dumps(data))


@pytest.mark.parametrize("name", FORGED)
def test_the_judge_refuses_a_forged_failure(name):
    assert Verdict.reported_failure(over_the_wire(FORGED[name])) == MALFORMED
    assert Verdict.reported_diagnosis(over_the_wire(FORGED[name])).ok  # (the judge's own words then)


@pytest.mark.parametrize("name", HONEST)
def test_the_judge_keeps_an_honest_failure(name):
    verdict = Verdict.reported_failure(over_the_wire(HONEST[name]))
    assert verdict != MALFORMED and verdict.key == HONEST[name]["key"]
    assert Verdict.reported_diagnosis(over_the_wire(HONEST[name])) == verdict
    for lang in messages.LANGUAGES:
        assert messages.render(verdict.key, verdict.fields, lang) != messages.render("judge.malformed", {}, lang)
    assert "{x:>99999999}{0}" in verdict.message or verdict.key != "loop.crashed"


def test_the_kernels_own_reports_of_an_error_are_kept():
    """The failures the kernel's own code makes of students' errors, any class name and text."""
    odd = type("Ünïcödé" * 40, (Exception,), {})  # a class name longer than the kernel keeps
    for exc in (ValueError("boom " * 200), RuntimeError("Trying to backward through the graph a second time"),
                TypeError("'generator' object is not subscriptable"), odd("\x1b[2J"), NotImplementedError(),
                AttributeError("'NoneType' object has no attribute 'zero_'")):
        try:
            raise exc
        except Exception as raised:  # (a traceback, as the kernel sees it)
            made = running.error_verdict(raised, "train")
        assert Verdict.reported_failure(over_the_wire(made.to_data())) == made, made
    assert Verdict.reported_failure(over_the_wire(running.error_verdict(running.NotCallable(), "f").to_data())).key \
        == "loop.not_callable"


@pytest.mark.parametrize("spec", [s for s in EXERCISES if s.kind == "function"], ids=lambda s: s.name)
def test_every_function_judge_refuses_forged_failures(spec):
    """Each exercise's judge reads a kernel's "error" through the same check."""
    module = judges.module(spec)
    case = module.CASES["visible"][0]
    data = module.scenario(case, case["seed"])
    for name, forged in FORGED.items():
        if name == "a pass":  # (a judge sees no error then: it judges the observation, which has none)
            continue
        observation = {"error": over_the_wire(forged), "diagnosis": over_the_wire(forged)}
        verdict = judges.verdict(module, data, observation)
        assert not verdict.ok and messages.render(verdict.key, verdict.fields) == MALFORMED_TEXT or \
            verdict.key.startswith("judge."), (spec.name, name, verdict)


def test_the_judge_process_refuses_them_in_a_graded_cell():
    """Through the judge's own requests, as a kernel makes them: the cell fails with the
    malformed message, which renders."""
    judge = judge_server.Judge(ROOT)
    session = judge.sessions[judge.open("03_zeroing_grad", "03_zeroing_grad")["session"]]
    judge.begin(session, "fit_line_tests")
    judge.seal(session)
    forged = iter(FORGED.values())
    for which in ("visible", "hidden"):
        for item in judge.scenarios(session, "check_fit_line", which)["scenarios"]:
            reply = judge.report(session, item["token"], over_the_wire({"error": next(forged)}))
            assert reply["ok"] is False and reply["key"] == "judge.malformed", reply
    verdict = Verdict.from_data(over_the_wire(judge.end(session, "fit_line_tests")))
    assert verdict == MALFORMED and verdict.message == MALFORMED_TEXT


# -- the declaration is the kernel's code --------------------------------------------------------
def _kernel_failures() -> list:
    """(file, key, field names) of every ``Verdict.fail(mistake, "key", ...)`` in the kernel's code:
    autograder/kernel and each exercise's observer (``autograder/exercises/<name>/observe.py``)."""
    found = []
    kernel_side = [*(ROOT / "autograder" / "kernel").rglob("*.py"), *(ROOT / "autograder" / "exercises").glob("*/observe.py")]
    for path in sorted(kernel_side):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "fail" and len(node.args) >= 2 \
                    and isinstance(node.args[1], ast.Constant):
                names = {k.arg for k in node.keywords if k.arg}
                spread = [k.value.id for k in node.keywords if k.arg is None and isinstance(k.value, ast.Name)]
                found.append((path.name, node.args[1].value, names, spread))
    return found


def test_every_failure_a_kernel_gives_is_declared():
    found = _kernel_failures()
    assert len(found) >= 30
    assert {"manual.not_leaf", "value_backward.not_class"} <= {key for _, key, _, _ in found}  # (observers)
    for path, key, names, spread in found:
        if key == "judge.unreachable":  # (the kernel's own word to its student, never sent to a judge)
            continue
        assert key in reported.DECLARED, (path, key)
        declared = set(reported.DECLARED[key])
        assert names <= declared, (path, key, names - declared)
        if spread:  # **fields: the step verdicts' common fields
            assert set(reported.STEP_FIELDS) <= declared, (path, key)
    for _, _, _, key in errors.CATALOGUE:
        assert key is None or key in reported.DECLARED


def test_every_declared_message_renders_from_its_fields():
    """Each declared message exists, in every language, and asks for no field it does not declare."""
    for key, declared in reported.DECLARED.items():
        for lang in messages.LANGUAGES:
            template = messages._GRADER.raw(key, lang)
            forms = template.values() if isinstance(template, dict) else [template]
            asked = {field for form in forms for _, field, _, _ in string.Formatter().parse(form) if field}
            assert asked <= set(declared), (key, lang, asked - set(declared))


# -- every verdict read from JSON, and rendering ---------------------------------------------------
@pytest.mark.parametrize("fields", [
    {"count": 10 ** 400}, {"n": 10 ** 16}, {"x": "y" * 10_001}, {"x": deep(10)}, {"x": {"a": 1}},
    {"x": [[1]]}, {"x": list(range(101))}, {1: "x"}, {"x y": 1}, {"x": {"$key": "a", "fields": [], "more": 1}},
    ["x"], "x", {f"f{i}": 1 for i in range(33)},
])
def test_a_verdict_read_from_json_has_the_shape_of_one(fields):
    data = {"ok": False, "mistake": "m", "key": "loop.crashed", "fields": fields}
    assert Verdict.from_data(data) == MALFORMED
    assert Verdict.from_data({**data, "ok": True}).ok  # a pass is a pass, whatever else it carries


@pytest.mark.parametrize("name", FORGED)
def test_rendering_never_raises(name):
    data = FORGED[name]
    if not isinstance(data, dict):
        return
    for lang in messages.LANGUAGES:
        text = messages.render(str(data["key"]), data["fields"], lang)
        assert isinstance(text, str) and len(text) <= messages.MAX_MESSAGE
    assert messages.render("loop.step_count", {1: 2, "count": 10 ** 400}) == MALFORMED_TEXT  # (a key not a string)
    assert messages.plural("en", 10 ** 400) == "other"


def test_a_message_may_nest_messages_three_deep_and_no_deeper():
    three = nested("loop.losses_not_list", got=nested("loop.list_holding", type="int"))
    assert messages.render("general.error_named", {"error": three}, "en") != MALFORMED_TEXT
    assert messages.render("general.error_named", {"error": deep(messages.MAX_NESTING + 1)}, "en") == MALFORMED_TEXT
    assert json.dumps(deep(messages.MAX_NESTING))  # (a shape JSON carries)
