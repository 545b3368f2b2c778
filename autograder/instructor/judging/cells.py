"""What each test cell of the instructor's source notebook requires, read from its code.

The judge decides a test cell's points from the instructor's own version of the cell
(never the student's copy): every call of a known ``check_*`` function in it is a check
that must pass in that cell's run. For a value check, the answer it reads is an
expression over the student's variables (``answer_q1``, ``{"grad_before": grad_before}``);
those names are committed from the kernel just before the cell runs, and the judge
evaluates the expression over the committed data itself. Options written as constants
in the cell (``cases="hidden"``, ``key="c"``) are read here, so a Quick Check key in a
hidden test reaches the judge without passing through the student's kernel.

The kernel runs ``kernel_source`` of a test cell: the instructor's code without the
arguments a check declares secret (``key``) and without comments, so that a student's
hook that sees every cell's code as it runs (``pre_run_cell``, ``sys.settrace``, ``In``)
sees nothing worth sharing.
"""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path

from ...wire.codec import Opaque, decode
from ...exercises import CHECKS
from ...wire.spec import Exercise


@dataclass(frozen=True)
class CheckCall:
    spec: Exercise
    cases: str
    subject: ast.expr | None  # the answer's expression (value checks)
    options: dict = field(default_factory=dict)  # other arguments, as constants

    def names(self) -> set:
        """The student's variables the answer expression reads."""
        if self.subject is None:
            return set()
        return {node.id for node in ast.walk(self.subject) if isinstance(node, ast.Name)}


class UnsupportedTestCell(ValueError):
    pass


def _constant(node: ast.expr, what: str):
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise UnsupportedTestCell(f"{what} must be a constant") from None


def _bind(spec: Exercise, call: ast.Call) -> CheckCall:
    if len(call.args) > len(spec.params) or any(k.arg is None for k in call.keywords):
        raise UnsupportedTestCell(f"{spec.check}: unexpected arguments")
    bound = dict(zip(spec.params, call.args))
    for keyword in call.keywords:
        if keyword.arg not in spec.params or keyword.arg in bound:
            raise UnsupportedTestCell(f"{spec.check}: unexpected argument {keyword.arg!r}")
        bound[keyword.arg] = keyword.value
    if spec.subject not in bound:
        raise UnsupportedTestCell(f"{spec.check}: no answer given")
    cases = _constant(bound["cases"], "cases") if "cases" in bound else "visible"
    options = {name: _constant(node, name) for name, node in bound.items()
               if name not in (spec.subject, "cases")}
    subject = bound[spec.subject] if spec.kind == "value" else None
    return CheckCall(spec, cases, subject, options)


def required_checks(source: str) -> list:
    """The checks a test cell's code calls, in order."""
    calls = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CHECKS:
            calls.append(_bind(CHECKS[node.func.id], node))
    return calls


def kernel_source(source: str) -> str:
    """A test cell's code as the kernel may see it: every call of a known check without its
    secret arguments (a positional argument after one becomes a keyword), comments dropped.
    Code that does not parse as Python is sent as it is (the judge finds no check in it either)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CHECKS:
            spec = CHECKS[node.func.id]
            if not spec.secret:
                continue
            first = min(spec.params.index(name) for name in spec.secret)
            later = [ast.keyword(arg=spec.params[i], value=arg) for i, arg in enumerate(node.args)
                     if first <= i < len(spec.params) and spec.params[i] not in spec.secret]
            node.args = node.args[:first]
            node.keywords = [k for k in node.keywords if k.arg not in spec.secret] + later
    return ast.unparse(tree) + "\n"


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def of_notebook(path: Path) -> dict:
    """{grade id: [CheckCall]} for every test cell of an instructor's notebook (a cell
    that calls no check has an empty list: nbgrader alone grades it)."""
    notebook = json.loads(Path(path).read_text())
    cells = {}
    for cell in notebook["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") == "code" and meta.get("grade"):
            cells[meta["grade_id"]] = required_checks(_source(cell))
    return cells


def evaluate(expression: ast.expr, committed: dict):
    """The answer an expression denotes, over the committed (decoded) values. Only names,
    constants and literal containers: the judge never runs the student's code."""
    if isinstance(expression, ast.Name):
        return decode(committed[expression.id]) if expression.id in committed else Opaque("missing")
    if isinstance(expression, ast.Constant):
        return expression.value
    if isinstance(expression, ast.Dict) and None not in expression.keys:
        return {evaluate(k, committed): evaluate(v, committed) for k, v in zip(expression.keys, expression.values)}
    if isinstance(expression, ast.Tuple):
        return tuple(evaluate(e, committed) for e in expression.elts)
    if isinstance(expression, ast.List):
        return [evaluate(e, committed) for e in expression.elts]
    raise UnsupportedTestCell("an answer must be a name, a constant or a literal dict, tuple or list")
