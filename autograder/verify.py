"""Re-run a graded notebook's checks where the student's code cannot have changed them.

In the grading kernel, student code runs in the same process as the checks, so it
can rebind them, patch ``torch.optim.Optimizer.step`` or ``torch.allclose``, override
builtins, or behave differently when ``NBGRADER_EXECUTION`` says it is being graded.
``run`` executes the notebook's setup, answer and test cells once more in a fresh
process (forked from the grading fork server, sandboxed, without
``NBGRADER_EXECUTION``), and before every test cell puts back the genuine objects the
checks rely on: builtins, torch's functions and classes, and every module of this
grader. If the student's code changes any of them while a check runs, that check
fails. A cell's final score is the lower of the two runs, so honest code scores
exactly what nbgrader gives it, and tampering earns nothing.
"""
from __future__ import annotations

import builtins
import contextlib
import copy
import importlib
import inspect
import io
import pkgutil
import signal


def _namespaces() -> list:
    """Every object whose attributes the checks depend on."""
    import torch
    import torch.autograd
    import torch.nn
    import torch.nn.functional
    import torch.optim

    import autograder
    import lessons.quiz

    objects = [builtins, torch, torch.Tensor, torch.autograd, torch.nn.functional, torch.nn.Module,
               torch.optim, torch.optim.Optimizer, lessons.quiz]
    objects += [cls for cls in vars(torch.optim).values()
                if inspect.isclass(cls) and issubclass(cls, torch.optim.Optimizer)]
    objects += [getattr(torch.nn, name) for name in ("Linear", "Sequential", "MSELoss", "Tanh", "ReLU")]
    for info in pkgutil.iter_modules(autograder.__path__):
        if info.name in ("forkserver", "grade", "cli", "nbgrader_ext", "summary", "verify"):
            continue
        module = importlib.import_module(f"autograder.{info.name}")
        objects.append(module)
        objects += [cls for cls in vars(module).values()
                    if inspect.isclass(cls) and cls.__module__ == module.__name__]
    return objects


def _prime() -> None:
    """Let torch do its one-time patching (each optimizer class wraps its ``step`` on first
    use) before the snapshot, so that it is not mistaken for tampering."""
    import torch

    param = torch.nn.Parameter(torch.zeros(1))
    for cls in (torch.optim.SGD, torch.optim.Adam):
        cls([param], lr=0.1)


def _lazy(key: str) -> bool:
    """Caches Python adds to classes on its own (``__slotnames__`` from copy, …)."""
    return key.startswith("__") and key.endswith("__")


def _attrs(obj) -> dict:
    return dict(vars(obj))


def _is_data(value) -> bool:
    return isinstance(value, (dict, list, set, tuple)) and not inspect.ismodule(value)


class Snapshot:
    """The genuine attributes of the guarded objects, taken before student code runs."""

    def __init__(self):
        _prime()
        self.objects = _namespaces()
        self.saved = []
        for obj in self.objects:
            attrs = _attrs(obj)
            data = {}
            for key, value in attrs.items():
                if _is_data(value) and obj is not builtins and key != "__builtins__":
                    with contextlib.suppress(Exception):
                        data[key] = copy.deepcopy(value)
            self.saved.append((obj, attrs, data))

    def changes(self) -> list:
        """Names of guarded attributes that differ from the snapshot."""
        found = []
        for obj, attrs, data in self.saved:
            now = _attrs(obj)
            name = getattr(obj, "__name__", type(obj).__name__)
            for key in set(attrs) | set(now):
                if key in ("__dict__", "__weakref__", "__annotations__", "__builtins__") or key.startswith("_abc_"):
                    continue
                if key not in attrs and _lazy(key):
                    continue
                if key in data:  # data is compared by value: restore() may have copied it back
                    with contextlib.suppress(Exception):
                        if now.get(key, _MISSING) != data[key]:
                            found.append(f"{name}.{key}")
                elif now.get(key, _MISSING) is not attrs.get(key, _MISSING):
                    found.append(f"{name}.{key}")
        return sorted(found)

    def restore(self) -> None:
        for obj, attrs, data in self.saved:
            now = _attrs(obj)
            for key in set(now) - set(attrs):
                if _lazy(key):
                    continue
                with contextlib.suppress(Exception):
                    delattr(obj, key) if obj is not builtins else builtins.__dict__.pop(key)
            for key, value in attrs.items():
                if key in data:
                    with contextlib.suppress(Exception):
                        if now.get(key, _MISSING) == data[key]:
                            continue
                    value = copy.deepcopy(data[key])
                    if isinstance(now.get(key), dict) and isinstance(value, dict):
                        now[key].clear()
                        now[key].update(value)
                        continue
                if now.get(key, _MISSING) is not value:
                    with contextlib.suppress(Exception):
                        setattr(obj, key, value)


_MISSING = object()
# errors after which the grading kernel was restarted (or the cell interrupted) without
# keeping anything the cell did: the re-run leaves such cells out too
FATAL = {"KernelDied", "KernelUnresponsive", "CellTimeoutError"}


class CellTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise CellTimeout("the cell ran past the time limit")


def _run(shell, source: str, timeout: int = 0):
    """Run a cell quietly; with ``timeout``, interrupt it after that many seconds."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(timeout)
        try:
            return shell.run_cell(source, store_history=False, silent=True)
        finally:
            signal.alarm(0)


def run(cells: list, timeout: int = 120) -> dict:
    """cells: [{kind: setup|code|test, id, source}] in notebook order → {test id: {passed, message}}."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False  # see forkserver.NO_HISTORY
    shell = InteractiveShell.instance(config=config)
    setup = "\n".join(c["source"] for c in cells if c["kind"] == "setup")
    _run(shell, setup)
    genuine = Snapshot()
    results = {}
    for cell in cells:
        if cell["kind"] == "code":
            _run(shell, cell["source"], timeout)
        elif cell["kind"] == "test":
            genuine.restore()
            _run(shell, setup)  # rebind the check functions the test cell calls
            outcome = _run(shell, cell["source"], timeout)
            error = outcome.error_in_exec or outcome.error_before_exec
            tampered = genuine.changes()
            if tampered:
                results[cell["id"]] = {"passed": False, "message": "changed: " + ", ".join(tampered[:5])}
            elif error is not None:
                results[cell["id"]] = {"passed": False, "message": f"{type(error).__name__}: {error}"}
            else:
                results[cell["id"]] = {"passed": True, "message": ""}
    return results


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def cells_of(notebook: dict, instructor: dict | None = None) -> list:
    """The code cells of an autograded notebook (a JSON dict) to run again: setup, tests,
    answers and any cell the student added or changed (answers may depend on them).
    Demo cells exactly as in the instructor's notebook ``instructor`` are skipped."""
    unchanged = set()
    if instructor:
        unchanged = {_source(c) for c in instructor["cells"] if c["cell_type"] == "code"
                     and not c.get("metadata", {}).get("nbgrader", {}).get("solution")
                     and not c.get("metadata", {}).get("nbgrader", {}).get("grade")}
    out = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {})
        source = _source(cell)
        kind = "setup" if meta.get("grade_id") == "setup" else "test" if meta.get("grade") else "code"
        if kind == "code" and not meta.get("solution") and source in unchanged:
            continue
        if kind == "code" and any(o.get("ename") in FATAL for o in cell.get("outputs", [])):
            continue  # the grading kernel was restarted without it; so is this run
        out.append({"kind": kind, "id": meta.get("grade_id"), "source": source})
    return out
