"""JudgedExecute: the kernel is sandboxed, the judge is told when each test cell runs, the
answers a test cell reads are committed before its code reaches the kernel, and a kernel
that dies costs only its cell."""
from __future__ import annotations

import nbformat
import pytest
from helpers import ROOT, grade_id, read
from traitlets.config import Config

from autograder.instructor.passes.judged_execute import JudgedExecute
from autograder.wire.verdict import Verdict

pytestmark = pytest.mark.slow
NAME = "03_zeroing_grad"


def _lesson(answers: dict, extra_before_tests: str = ""):
    """Lesson 3's setup, Quick Check answers and their four test cells, as nbgrader runs them."""
    source = read(ROOT / "source" / NAME / f"{NAME}.ipynb")
    cells = [c for c in source.cells if c.cell_type == "code" and
             (grade_id(c) in ("setup", "quick_check_answers") or (grade_id(c) or "").startswith("quiz_q"))]
    for cell in cells:
        if grade_id(cell) == "quick_check_answers":
            cell.source = "\n".join(f"answer_q{n} = {letter!r}" for n, letter in answers.items()) + extra_before_tests
    return nbformat.v4.new_notebook(cells=cells)


def _keys() -> dict:
    """The keys of the published variants: this course has no secret."""
    from autograder.instructor.judging.cells import of_notebook
    from autograder.judges import variants
    cells = of_notebook(ROOT / "source" / NAME / f"{NAME}.ipynb")
    return {int(cell[-1]): variants.variant(calls[0].options["question"], None).key
            for cell, calls in cells.items() if cell.startswith("quiz_q")}


def _run(nb, tmp_path):
    config = Config()
    config.CourseDirectory.root = str(ROOT)
    executor = JudgedExecute(config=config, timeout=60)
    resources = {"nbgrader": {"assignment": NAME, "notebook": NAME, "student": "s"},
                 "metadata": {"path": str(tmp_path)}}
    nb, resources = executor.preprocess(nb, resources)
    return {cell: Verdict.from_data(v) for cell, v in resources["autograder"]["verdicts"].items()}, nb


def test_right_and_wrong_answers(tmp_path):
    keys = _keys()
    answers = dict(keys)
    answers[2] = next(letter for letter in "abcd" if letter != keys[2])
    verdicts, nb = _run(_lesson(answers), tmp_path)
    assert verdicts["quiz_q1"].ok and verdicts["quiz_q3"].ok and verdicts["quiz_q4"].ok
    outputs = [str(o) for cell in nb.cells for o in cell.outputs]
    assert outputs and not any("grading reads" in o or "MalformedKernelMessage" in o for o in outputs)
    assert verdicts["quiz_q2"].mistake == "wrong_choice"
    assert verdicts["train_loop_tests"].mistake == "no_record"  # never ran in this notebook


def test_a_hook_that_sees_every_test_cell_finds_no_key(tmp_path):
    """An input transformer sees the code of every cell the kernel runs, and would rewrite the
    answer to the key it finds there: no key is anywhere, not even in the instructor's
    notebook (the judge draws it with the variant), so it finds none, and the judge says wrong."""
    keys = _keys()
    wrong = {n: next(letter for letter in "abcd" if letter != key) for n, key in keys.items()}
    hook = '''
import re
SEEN = []
def _steal(lines):
    text = "".join(lines)
    SEEN.append(text)
    found = re.search(r'check_choice\\(.l3_q(\\d)., answer_q\\d, key=.(\\w).\\)', text)
    return [f"answer_q{found.group(1)} = {found.group(2)!r}\\n"] + lines if found else lines
get_ipython().input_transformers_cleanup.append(_steal)'''
    nb = _lesson(wrong, hook)
    nb.cells.append(nbformat.v4.new_code_cell("print(repr(SEEN))"))
    verdicts, nb = _run(nb, tmp_path)
    seen = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert all(f"check_choice('l3_q{n}', answer_q{n})" in seen for n in keys)  # each test cell
    assert "key" not in seen and "HIDDEN" not in seen
    assert all(verdicts[f"quiz_q{n}"].mistake == "wrong_choice" for n in keys)
    assert not any("key=" in c.source for c in nb.cells if (grade_id(c) or "").startswith("quiz_q"))


def test_a_notebook_that_stalls_its_kernel_again_and_again_is_cut_off_at_its_budget(tmp_path):
    """Each of these cells ignores the interrupt and spins: a timeout, a probe and a restart
    each. The notebook's budget (``notebook_timeout``) ends it; the cells it did not reach
    get an error that says so, and grading returns."""
    stall = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"
    cells = [nbformat.v4.new_code_cell("x = 1")] + [nbformat.v4.new_code_cell(stall) for _ in range(6)] \
        + [nbformat.v4.new_code_cell("print('reached', x)")]
    config = Config()
    config.CourseDirectory.root = str(ROOT)
    executor = JudgedExecute(config=config, timeout=2, notebook_timeout=12)
    resources = {"nbgrader": {"assignment": NAME, "notebook": NAME, "student": "s"},
                 "metadata": {"path": str(tmp_path)}}
    nb, _ = executor.preprocess(nbformat.v4.new_notebook(cells=cells), resources)
    errors = [[o.ename for o in c.outputs if o.output_type == "error"] for c in nb.cells]
    assert errors[0] == [] and "KernelUnresponsive" in errors[1]
    assert errors[-1] == ["NotebookTimeout"] and not any(o.get("text") for o in nb.cells[-1].outputs)
    cut = [e for e in errors if e == ["NotebookTimeout"]]
    assert 2 <= len(cut) <= 6, errors
    assert "ran out of the time this notebook may take" in nb.cells[-1].outputs[0].evalue


def test_the_budget_is_ten_cells_of_timeout_unless_set():
    from autograder.instructor.time_budget import (
        notebook_budget,
        submission_budget,
    )

    assert notebook_budget(None, 120) == 1200 and notebook_budget(0, None) == 300
    assert notebook_budget(45, 120) == 45
    config = Config()
    config.JudgedExecute.timeout = 10
    assert submission_budget(config, 2) == 2 * 100 + 300
    config.JudgedExecute.notebook_timeout = 50
    assert submission_budget(config, 1) == 50 + 300


GARBLES_ITS_SOCKETS = r'''
import json, os, select, socket
for entry in sorted(os.listdir("/proc/self/fd"), key=int):
    fd = int(entry)
    try:
        if fd < 4 or not os.readlink("/proc/self/fd/%d" % fd).startswith("socket:"):
            continue
        probe = socket.socket(fileno=os.dup(fd))
        try:
            if probe.family != socket.AF_UNIX or probe.type != socket.SOCK_STREAM:
                continue
            probe.getpeername()
        except OSError:
            continue
        finally:
            probe.close()
        if select.select([], [fd], [], 0.1)[1]:
            os.write(fd, b"".join(json.dumps(m).encode() + b"\n" for m in ({"type": "pass"}, {"a": 1}) * 4))
    except OSError:
        pass
'''


def test_a_cell_that_garbles_its_kernels_sockets_costs_only_itself(tmp_path):
    """Code in the kernel can write into the kernel's end of its ZeroMQ connections. Once it
    did, the client's shell socket had no peer left and the next send blocked for ever (a
    whole grading run hung). Now the garbling cell and a later cell that hangs each get an
    error, the cells between and after run with the earlier cells' variables, and the
    notebook finishes."""
    stall = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"
    sources = ["x = 1", GARBLES_ITS_SOCKETS, "y = 2", "print('after', x, y)", stall, "print('end', x, y)"]
    config = Config()
    config.CourseDirectory.root = str(ROOT)
    executor = JudgedExecute(config=config, timeout=3)  # each of the two cells that hang waits this long
    resources = {"nbgrader": {"assignment": NAME, "notebook": NAME, "student": "s"},
                 "metadata": {"path": str(tmp_path)}}
    nb, _ = executor.preprocess(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources]),
                                resources)
    errors = [[o.ename for o in c.outputs if o.output_type == "error"] for c in nb.cells]
    printed = ["".join(o.get("text", "") for o in c.outputs) for c in nb.cells]
    assert errors[0] == [] and errors[2] == [] and errors[3] == [] and errors[5] == [], errors
    assert "KernelUnresponsive" in errors[4]
    # the last cell ran (no NotebookTimeout): the notebook finished inside its own budget
    assert printed[3] == "after 1 2\n" and printed[5] == "end 1 2\n", printed


# Code in a kernel holds the kernel's session key and sockets: it can send any frames, signed.
SENDS_RAW = r'''
import json as _json
_k = get_ipython().kernel
def _frames(kind, content, parent=None, header=None, extra=()):
    s = _k.session
    parts = [header if header is not None else s.pack(s.msg_header(kind)),
             parent if parent is not None else s.pack(dict(_k.get_parent().get("header", {}))),
             b"{}", content if isinstance(content, bytes) else _json.dumps(content).encode()]
    return [b"<IDS|MSG>", s.sign(parts)] + parts + list(extra)
def _iopub(kind, content, **kw):
    _k.iopub_socket.send_multipart([b"topic"] + _frames(kind, content, **kw))
def _shell(kind, content, **kw):
    ident = _k._parent_ident["shell"]
    _k.shell_stream.socket.send_multipart((list(ident) if isinstance(ident, list) else [ident])
                                          + _frames(kind, content, **kw))
'''
NOT_THE_PROTOCOL = {
    "content a list": "_iopub('stream', [1, 2])",
    "content a string": "_iopub('display_data', 'hello')",
    "content a number": "_iopub('execute_result', 5)",
    "stream without a name": "_iopub('stream', {'text': 'x'})",
    "stream name not stdout": "_iopub('stream', {'name': 'x' * 300, 'text': 'y'})",
    "stream text a number": "_iopub('stream', {'name': 'stdout', 'text': 5})",
    "data not a dict": "_iopub('display_data', {'data': [1], 'metadata': {}})",
    "data values not text": "_iopub('display_data', {'data': {'text/plain': 5}, 'metadata': {}})",
    "metadata a list": "_iopub('display_data', {'data': {'text/plain': 'a'}, 'metadata': [1]})",
    "transient a list": "_iopub('display_data', {'data': {'text/plain': 'a'}, 'metadata': {}, 'transient': [1]})",
    "display id a list": "_iopub('update_display_data', {'data': {}, 'metadata': {}, 'transient': {'display_id': [1]}})",
    "execution count text": "_iopub('execute_input', {'code': '', 'execution_count': 'x'})",
    "error without traceback": "_iopub('error', {'ename': 'E', 'evalue': 'v'})",
    "status without state": "_iopub('status', {})",
    "clear_output wait text": "_iopub('clear_output', {'wait': 'yes'})",
    "comm_msg a list": "_iopub('comm_msg', [1])",
    "unknown type": "_iopub('x' * 500, {})",
    "parent header a list": "_iopub('stream', {'name': 'stdout', 'text': 'x'}, parent=b'[1]')",
    "header a list": "_iopub('stream', {'name': 'stdout', 'text': 'x'}, header=b'[1]')",
    "msg_type a number": "_iopub('stream', {}, header=b'{\"msg_id\": \"a\", \"msg_type\": 5}')",
    "JSON nested deep": "_iopub('display_data', b'{\"data\": {\"application/json\": ' + b'[' * 900 + b']' * 900"
                        " + b'}, \"metadata\": {}}')",
    "not JSON": "_iopub('stream', b'{not json')",
    "unsigned": "_k.iopub_socket.send_multipart([b't', b'<IDS|MSG>', b'', b'{}', b'{}', b'{}', b'{}'])",
    "no delimiter": "_k.iopub_socket.send_multipart([b't', b'x'])",
    "reply a list": "_shell('execute_reply', [1])",
    "reply without status": "_shell('execute_reply', {})",
    "not a reply on shell": "_shell('stream', {'name': 'stdout', 'text': 'x'})",
}


def test_a_message_not_of_the_protocol_costs_at_most_the_cell_it_arrives_in(tmp_path):
    """Each cell sends one message that is not what Jupyter's protocol says (on IOPub or on
    shell, validly signed or not): that cell gets one error saying so, in the notebook's
    language, the next cell runs with the earlier cells' variables, and the Quick Check test
    cells after them are judged as ever. (A list as a message's content once made the grader
    fail on the whole notebook: every question 0.)"""
    keys = _keys()
    nb = _lesson(keys)
    first_test = next(i for i, c in enumerate(nb.cells) if (grade_id(c) or "").startswith("quiz_q"))
    hostile = [SENDS_RAW, "x = 1"]
    for name, code in NOT_THE_PROTOCOL.items():
        hostile += [f"# {name}\n{code}", "print('ok', x)"]
    nb.cells[first_test:first_test] = [nbformat.v4.new_code_cell(source) for source in hostile]
    nb.metadata["autograd_lessons"] = {"language": "fr"}
    verdicts, nb = _run(nb, tmp_path)
    assert all(verdicts[f"quiz_q{n}"].ok for n in keys), verdicts
    cells = nb.cells[first_test + 2:first_test + len(hostile)]
    for name, sender, after in zip(NOT_THE_PROTOCOL, cells[::2], cells[1::2]):
        errors = [o for o in sender.outputs if o.output_type == "error"]
        assert [o.ename for o in errors] == ["MalformedKernelMessage"], (name, sender.outputs)
        assert "protocole de messages de Jupyter" in errors[0].evalue, name
        assert [o.output_type for o in after.outputs] == ["stream"] * len(after.outputs), (name, after.outputs)
        assert "".join(o.text for o in after.outputs) == "ok 1\n", (name, after.outputs)


SHOWS_ERRORS = "for _ in range({n}):\n    try:\n        raise ValueError('e' * {size})\n    except ValueError:\n" \
               "        get_ipython().showtraceback()\n"
EVERY_BYTE_COUNTS = {
    "error outputs": SHOWS_ERRORS.format(n=60, size=20_000),
    "an error reply on shell": "_shell('execute_reply', {'status': 'error', 'ename': 'E' * 60_000, 'evalue': 'v' * 60_000,"
                               " 'traceback': ['t'] * 60_000})\nimport time\ntime.sleep(0.5)",
    "one update copied into 400 displays": "from IPython.display import display, update_display\n"
                                           "for _ in range(400):\n    display({'text/plain': 'x'}, raw=True, display_id='d')\n"
                                           "update_display({'text/plain': 'y' * 120_000}, raw=True, display_id='d')",
    "a stream whose name is 3 MB": "for _ in range(3):\n    _iopub('stream', {'name': 'x' * 3_000_000, 'text': 'y'})\n"
                                   "print('z' * 50_000)",
    "text that grows in pages": "for text in ('&' * 30_000, '\\n' * 30_000, '\\x1b[31mx' * 5_000, '<li>' * 8_000):\n"
                                "    for _ in range(5):\n        print(text, flush=True)",
    "a traceback of many lines": "_iopub('error', {'ename': 'E', 'evalue': 'v', 'traceback': ['a'] * 200_000})",
    "metadata, comm messages and buffers": "_iopub('display_data', {'data': {'text/plain': 'a'}, "
                                           "'metadata': {'m': 'x' * 300_000}})\n"
                                           "_iopub('comm_msg', {'comm_id': 'c', 'data': {'x': 'y' * 300_000}}, "
                                           "extra=[b'z' * 3_000_000])\nprint('p' * 50_000)",
    "outputs cleared again and again": "from IPython.display import display, clear_output\nfor _ in range(100):\n"
                                       "    display({'text/plain': 'c' * 50_000}, raw=True)\n    clear_output(wait=True)\n"
                                       "display({'text/plain': 'last'}, raw=True)",
    # 60 cells: the budget is spent by the 14th, and the 47 after it could take 188 notes, past MAX_NOTES
    # (the test asserts the notes reach it); 120 cells took 4 times as long and proved no more
    "many cells of every kind of output": [
        "import sys\nprint('o')\nprint('e', file=sys.stderr)\ndisplay('d')\n1 / 0" for _ in range(60)],
}


def _grown(nb) -> tuple:
    """Bytes the outputs add to the notebook's file and to its page (nbconvert's classic page)."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="classic")
    bare = nbformat.from_dict(nb)
    for cell in bare.cells:
        cell.outputs = []
    return (len(nbformat.writes(nb).encode()) - len(nbformat.writes(bare).encode()),
            len(exporter.from_notebook_node(nb)[0].encode()) - len(exporter.from_notebook_node(bare)[0].encode()))


@pytest.mark.parametrize("payload", EVERY_BYTE_COUNTS)
def test_whatever_a_kernel_sends_its_notebook_and_page_stay_within_the_budget(tmp_path, payload):
    """Every byte a kernel sends is paid for as it arrives, whatever the field or the message:
    the outputs then add at most the budget to the notebook and to its page (and a note per
    cell and kind past it, at most ``MAX_NOTES``). Each payload once passed the budget that
    counted only the texts of stream, display and result messages: 300 errors of 198 000
    characters (57 MB), one update copied into 400 displays (38 MB), stream names of 3 MB (the
    grading process grew by 840 MB)."""
    from autograder.instructor.passes.judged_execute import MAX_NOTES

    budget = 200_000
    code = EVERY_BYTE_COUNTS[payload]
    cells = [SENDS_RAW, *([code] if isinstance(code, str) else code), "print('after')"]
    config = Config()
    config.CourseDirectory.root = str(ROOT)
    executor = JudgedExecute(config=config, timeout=60, max_kernel_bytes=budget)
    resources = {"nbgrader": {"assignment": NAME, "notebook": NAME, "student": "s"}, "metadata": {"path": str(tmp_path)}}
    nb, _ = executor.preprocess(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells]), resources)
    notes = sum("the most grading reads" in str(o) for cell in nb.cells for o in cell.outputs)
    assert notes <= MAX_NOTES
    if payload == "many cells of every kind of output":
        assert notes == MAX_NOTES, notes  # enough cells to run out of notes: the cap is what held them
    in_file, in_page = _grown(nb)
    assert in_file <= budget + 1_000 * notes and in_page <= budget + 1_000 * notes, (payload, in_file, in_page)
    last = nb.cells[-1]  # the notebook ran to its end
    assert last.execution_count and not any(o.get("ename") == "NotebookTimeout" for o in last.outputs), payload


def test_a_kernel_that_sends_more_than_any_notebook_needs_is_ended(tmp_path):
    """ZeroMQ keeps every frame of a message in the grading process until its last frame has
    come, and a kernel can send one buffer as the same frame again and again: five messages of
    250 frames of 4 MB, from 4 MB of the kernel's memory, took the grading process from 292 MB
    to 1.3 GB. A relay counts the kernel's bytes before ZeroMQ keeps them and ends the kernel
    past ``relay.MAX_KERNEL_BYTES`` (40 such messages then peaked at 339 MB): that cell says so
    and gets no points, a fresh kernel replays the cells before, and the rest runs."""
    from autograder.instructor.kernels import relay

    frames = SENDS_RAW + (
        "big = b'b' * (4 * 2**20 - 100)\n"
        "for _ in range(40):\n"
        "    _k.iopub_socket.send_multipart([b't'] + _frames('comm_msg', {'comm_id': 'c', 'data': {}},"
        " extra=[big] * 250), copy=False)\n")
    cells = ["x = 1", frames, "print('after', x)"]
    config = Config()
    config.CourseDirectory.root = str(ROOT)
    executor = JudgedExecute(config=config, timeout=60)
    resources = {"nbgrader": {"assignment": NAME, "notebook": NAME, "student": "s"}, "metadata": {"path": str(tmp_path)}}
    nb, _ = executor.preprocess(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells]), resources)
    errors = [o for o in nb.cells[1].outputs if o.output_type == "error"]
    assert [o.ename for o in errors] == ["KernelFlooded"], nb.cells[1].outputs
    assert f"more than {relay.MAX_KERNEL_BYTES // 2 ** 20} MB" in errors[0].evalue
    assert "".join(o.get("text", "") for o in nb.cells[2].outputs) == "after 1\n"
