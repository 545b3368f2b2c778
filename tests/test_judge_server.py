"""The judge decides a test cell's points from what happened inside that cell's window only:
scenarios it issued for that cell's checks, reports on them, answers committed before the
cell's code reached the kernel. Nothing else counts."""
from __future__ import annotations

import json
import socket
import threading

import pytest
from catalogue import TRAIN_LOOP
from helpers import ROOT

from autograder.instructor.judging import server as judge_server
from autograder.judges import variants
from autograder.exercises.train_loop import judge as train_loop
from autograder.kernel.checks import observer
from autograder.exercises import BY_NAME, CHECKS

NAME = "03_zeroing_grad"
RIGHT = next(e for e in TRAIN_LOOP if e.name == "canonical").load()
WRONG = next(e for e in TRAIN_LOOP if e.name == "never_cleared").load()


@pytest.fixture
def judge():
    judge = judge_server.Judge(ROOT)
    sid = judge.open(NAME, NAME)["session"]
    return judge, judge.sessions[sid]


def _run_loop_checks(judge, session, student, cases=("visible", "hidden")):
    for which in cases:
        for item in judge.scenarios(session, "check_train_loop", which)["scenarios"]:
            observation = observer(BY_NAME["train_loop"])(student, item["data"], "train")
            judge.report(session, item["token"], observation)


def _cell(judge, session, cell, commit=None, run=lambda: None):
    names = judge.begin(session, cell)["commit"]
    if commit is not None:
        judge.commit(session, commit)
    judge.seal(session)
    run()
    return names, judge.end(session, cell)


def test_a_right_loop_passes_inside_its_cell_and_the_scenarios_are_secret(judge):
    judge_, session = judge
    public = train_loop.scenario(train_loop.CASES["visible"][0], train_loop.CASES["visible"][0]["seed"])
    seen = []
    judge_.begin(session, "train_loop_tests")
    judge_.seal(session)
    for which in ("visible", "hidden"):
        for item in judge_.scenarios(session, "check_train_loop", which)["scenarios"]:
            seen.append(item["data"])
            judge_.report(session, item["token"], observer(BY_NAME["train_loop"])(RIGHT, item["data"], "train"))
    assert judge_.end(session, "train_loop_tests")["ok"] is True
    assert seen[0]["params"] != public["params"] and len(seen) == 3


def test_a_wrong_loop_fails(judge):
    judge_, session = judge
    _, verdict = _cell(judge_, session, "train_loop_tests", run=lambda: _run_loop_checks(judge_, session, WRONG))
    assert verdict["ok"] is False and verdict["mistake"] == "never_cleared"


def test_practice_outside_the_window_and_a_missing_hidden_check_earn_nothing(judge):
    judge_, session = judge
    _run_loop_checks(judge_, session, RIGHT)  # in no window: practice
    _, verdict = _cell(judge_, session, "train_loop_tests", run=lambda: _run_loop_checks(judge_, session, RIGHT, ("visible",)))
    assert verdict == {"ok": False, "mistake": "no_record", "key": "judge.no_record", "fields": {}}


def test_scenarios_asked_for_before_the_seal_are_practice(judge):
    judge_, session = judge
    judge_.begin(session, "train_loop_tests")
    _run_loop_checks(judge_, session, RIGHT)  # during the commit phase
    judge_.seal(session)
    assert judge_.end(session, "train_loop_tests")["mistake"] == "no_record"


def test_a_report_for_another_cell_does_not_count(judge):
    judge_, session = judge
    judge_.begin(session, "train_loop_tests")
    judge_.seal(session)
    issued = [judge_.scenarios(session, "check_train_loop", c)["scenarios"] for c in ("visible", "hidden")]
    judge_.end(session, "train_loop_tests")
    judge_.begin(session, "fit_line_tests")
    judge_.seal(session)
    for items in issued:  # a thread that reports later
        for item in items:
            judge_.report(session, item["token"], observer(BY_NAME["train_loop"])(RIGHT, item["data"], "train"))
    judge_.end(session, "fit_line_tests")
    assert all(v["ok"] is False for v in judge_.verdicts(session).values())


def _key(session, cell: str) -> str:
    """The key of the published variant (the session has no student and the judge no course
    secret), and a wrong letter."""
    question = next(c.options["question"] for c in session.required[cell])
    key = variants.variant(question, None).key
    return key, next(letter for letter in "abcd" if letter != key)


def test_answers_are_those_committed_before_the_cell(judge):
    judge_, session = judge
    names, verdict = _cell(judge_, session, "quiz_q1", commit={"answer_q1": _key(session, "quiz_q1")[0]})
    assert names == ["answer_q1"] and verdict["ok"] is True
    names, verdict = _cell(judge_, session, "quiz_q2", commit={"answer_q2": _key(session, "quiz_q2")[1]})
    assert verdict["mistake"] == "wrong_choice"
    judge_.begin(session, "quiz_q3")
    judge_.seal(session)
    assert judge_.commit(session, {"answer_q3": _key(session, "quiz_q3")[0]}) == {"ok": False}  # too late
    assert judge_.end(session, "quiz_q3")["mistake"] == "not_committed"
    right, wrong = _key(session, "quiz_q4")
    judge_.begin(session, "quiz_q4")
    assert judge_.commit(session, {"answer_q4": wrong}) == {"ok": True}
    assert judge_.commit(session, {"answer_q4": right}) == {"ok": False}  # one commit per cell
    judge_.seal(session)
    assert judge_.end(session, "quiz_q4")["mistake"] == "wrong_choice"


def test_the_accumulation_predictions_points_need_the_v_predictions_the_visible_check_cannot_judge(judge):
    """Exercise 3(a): the w predictions pass the visible check, but the cell's points need the v
    ones right, judged against the key the judge read from the hidden test."""
    from autograder.wire.codec import encode

    judge_, session = judge
    right = {"grad_before": None, "grad_after_one": 12.0, "grad_after_two": 24.0, "grad_after_clear": 12.0,
             "v_grad_before": None, "v_grad_after_one": -9.0, "v_grad_after_two": -18.0, "v_grad_after_clear": -9.0}
    names, verdict = _cell(judge_, session, "accumulation_predictions_tests", commit={k: encode(v) for k, v in right.items()})
    assert names == sorted(right) and verdict["ok"] is True
    guessed = dict(right, v_grad_after_two=-9.0)  # right in form: the visible check passes it
    _, verdict = _cell(judge_, session, "accumulation_predictions_tests", commit={k: encode(v) for k, v in guessed.items()})
    assert verdict["ok"] is False and verdict["mistake"] == "wrong_prediction" \
        and verdict["fields"]["name"] == "v_grad_after_two"


def test_cells_that_never_ran_have_no_points(judge):
    judge_, session = judge
    _cell(judge_, session, "quiz_q1", commit={"answer_q1": _key(session, "quiz_q1")[0]})
    verdicts = judge_.verdicts(session)
    assert verdicts["quiz_q1"]["ok"] is True
    assert {cell for cell, v in verdicts.items() if not v["ok"]} == set(verdicts) - {"quiz_q1"}


@pytest.mark.parametrize("observation", [None, "junk", {"steps": [[1, 2]]}, {"steps": "x" * 1000}])
def test_malformed_reports_fail_without_harm(judge, observation):
    judge_, session = judge
    judge_.begin(session, "train_loop_tests")
    judge_.seal(session)
    item = judge_.scenarios(session, "check_train_loop", "visible")["scenarios"][0]
    assert judge_.report(session, item["token"], observation)["ok"] is False
    assert judge_.report(session, "no such token", {})["ok"] is False
    assert judge_.scenarios(session, "check_nothing", "visible") == {"error": "unknown check"}
    assert judge_.end(session, "train_loop_tests")["ok"] is False


def test_the_kernel_socket_speaks_json_lines_and_refuses_garbage(tmp_path):
    """Over real sockets: the grader's request hands back a socket for a kernel (SCM_RIGHTS)."""
    judge = judge_server.Judge(ROOT)
    path = str(tmp_path / "judge.sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen()

    def serve():
        while True:
            conn, _ = server.accept()
            threading.Thread(target=judge_server._handle, args=(judge, conn), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    from autograder.instructor.judging.client import JudgeSession
    session = JudgeSession(path, NAME, NAME)
    assert "train_loop_tests" in session.cells
    kernel = socket.socket(fileno=session.kernel_socket())
    reader = kernel.makefile("rb")

    def ask(message):
        kernel.sendall((json.dumps(message) + "\n").encode())
        return json.loads(reader.readline())

    assert session.begin("quiz_q1") == ["answer_q1"]
    assert ask({"op": "commit", "values": {"answer_q1": _key(judge.sessions[session.id], "quiz_q1")[0]}, "id": "1"}) \
        == {"ok": True, "id": "1"}
    session.seal()
    assert session.end("quiz_q1").ok
    kernel.sendall(b"this is not json\n" + b"{" * 100 + b"\n")
    assert json.loads(reader.readline()) == {"error": "not JSON"}  # the judge answers and goes on
    assert json.loads(reader.readline()) == {"error": "not JSON"}
    assert len(CHECKS) >= 13


def test_forged_lines_on_the_kernels_socket_do_not_take_the_place_of_its_replies(tmp_path):
    """A student's code writes forged requests into its own judge socket: their replies are
    skipped by the check's own requests, which wait for the reply carrying their id."""
    from autograder.kernel.connection import RemoteJudge

    judge = judge_server.Judge(ROOT)
    sid = judge.open(NAME, NAME)["session"]
    ours, theirs = socket.socketpair()
    threading.Thread(target=judge_server._serve_kernel, args=(judge, judge.sessions[sid], ours), daemon=True).start()
    kernel_side = RemoteJudge(theirs.fileno())
    forged = b'{"op": "report", "token": "x", "observation": {}}\n{"ok": true}\nnot json\n'
    theirs.sendall(forged * 3)
    scenarios = kernel_side.scenarios(CHECKS["check_train_loop"], "visible")
    assert len(scenarios) == 1 and "params" in scenarios[0][1]
    theirs.sendall(forged)
    verdict = kernel_side.report(scenarios[0][0], observer(BY_NAME["train_loop"])(RIGHT, scenarios[0][1], "train"))
    assert verdict.ok


def _kernel_connection(judge):
    """A kernel's connection to a judge session, served as the judge serves it (its own thread)."""
    sid = judge.open(NAME, NAME)["session"]
    ours, theirs = socket.socketpair()
    thread = threading.Thread(target=judge_server._serve_kernel, args=(judge, judge.sessions[sid], ours), daemon=True)
    thread.start()
    return theirs, thread


def test_an_over_long_line_is_refused_and_the_connection_goes_on():
    judge = judge_server.Judge(ROOT)
    kernel, _ = _kernel_connection(judge)
    reader = kernel.makefile("rb")
    sender = threading.Thread(target=kernel.sendall, args=(b"[" * (judge_server.MAX_LINE + 10) + b"\n",))
    sender.start()
    assert json.loads(reader.readline()) == {"error": "line too long"}
    sender.join()
    kernel.sendall(b'{"op": "nothing", "id": "2"}\n')
    assert json.loads(reader.readline()) == {"error": "unknown request", "id": "2"}


def test_a_kernel_that_floods_the_judge_is_cut_off_and_others_are_answered():
    """Past its byte budget a kernel's connection is closed (its checks then have no record:
    0 points); another kernel's session is served throughout, by its own thread."""
    judge = judge_server.Judge(ROOT)
    flooder, flood_thread = _kernel_connection(judge)
    honest, _ = _kernel_connection(judge)
    honest_reader = honest.makefile("rb")
    line = b'{"op": "report", "token": "' + b"x" * (judge_server.MAX_LINE - 100) + b'"}\n'
    sent = 0
    with pytest.raises(OSError):  # the judge closes the flooder's connection: its next writes fail
        while True:
            flooder.sendall(line)
            sent += len(line)
            if sent == len(line) * 3:  # mid-flood, the honest kernel asks and is answered
                honest.sendall(b'{"op": "scenarios", "check": "check_train_loop", "cases": "visible", "id": "h"}\n')
                assert "scenarios" in json.loads(honest_reader.readline())
    flood_thread.join()
    assert judge_server.MAX_SESSION_BYTES <= sent <= judge_server.MAX_SESSION_BYTES + 8 * judge_server.MAX_LINE


def test_one_endless_line_is_cut_off_within_the_budget():
    """An over-long line is skipped to its end only while the kernel's budget lasts: a line of
    60 MB costs the judge at most ``MAX_SESSION_BYTES`` (and a line's read), then the connection
    is closed."""
    judge = judge_server.Judge(ROOT)
    flooder, flood_thread = _kernel_connection(judge)
    chunk = b"x" * judge_server.MAX_LINE
    sent = 0
    with pytest.raises(OSError):
        for _ in range(60):
            flooder.sendall(chunk)
            sent += len(chunk)
    flood_thread.join()
    assert sent <= judge_server.MAX_SESSION_BYTES + 8 * judge_server.MAX_LINE


def test_honest_messages_are_far_below_the_line_limit():
    """The largest observation a correct solution reports, for every function check, is tiny
    beside ``MAX_LINE``: the limit never touches an honest student."""
    import catalogue
    import catalogue_lessons
    from judging import EXERCISE_OF

    from autograder.judges.local import LocalJudge

    entries = catalogue.TRAIN_LOOP + catalogue.TRAIN_ACCUMULATE + [
        e for name in dir(catalogue_lessons) if name.isupper() for e in getattr(catalogue_lessons, name)]
    largest = 0
    for entry in (e for e in entries if e.mistake is None):
        spec = EXERCISE_OF[entry.function]
        for token, data in LocalJudge().scenarios(spec, "all"):
            observation = observer(spec)(entry.load(), data, spec.subject)
            largest = max(largest, len(json.dumps({"op": "report", "token": token, "observation": observation})))
    assert 0 < largest < judge_server.MAX_LINE / 20, largest


def test_a_notebook_whose_kernel_restarts_gets_no_new_budget(monkeypatch):
    """Every kernel of one notebook (a cell that ends its kernel with os._exit gets a fresh one,
    and a fresh judge connection) spends one budget: bytes and the judge's CPU, counted over all
    of them. With a budget per connection, one notebook took 64 s of the judge's CPU."""
    monkeypatch.setattr(judge_server, "MAX_SESSION_BYTES", 3 * judge_server.MAX_LINE)
    monkeypatch.setattr(judge_server, "MAX_SESSION_CPU", 0.5)
    judge = judge_server.Judge(ROOT)

    def kernel(session):
        """A new kernel's connection, served as the judge serves it; ``ask`` sends one line and
        returns the judge's answer (b"" once the judge has closed the connection)."""
        ours, theirs = socket.socketpair()
        threading.Thread(target=judge_server._serve_kernel, args=(judge, session, ours), daemon=True).start()
        reader = theirs.makefile("rb")

        def ask(line: bytes) -> bytes:
            try:
                theirs.sendall(line)
                return reader.readline()
            except OSError:
                return b""
        return ask

    def answered(session, line: bytes) -> int:
        """Lines one kernel gets answers to before the judge closes its connection."""
        ask, count = kernel(session), 0
        while ask(line):
            count += 1
        return count

    probe = b'{"op": "variant", "question": "x", "id": "1"}\n'
    session = judge.sessions[judge.open(NAME, NAME)["session"]]
    big = b'{"op": "report", "token": "' + b"x" * (judge_server.MAX_LINE // 2) + b'"}\n'
    first, second = answered(session, big), answered(session, big)
    assert first >= 5 and first + second <= 7, (first, second)  # 3 MB in all, not 3 MB each
    assert kernel(session)(probe) == b""  # and a third kernel is not answered at all

    monkeypatch.setattr(judge_server, "MAX_SESSION_BYTES", 2 ** 40)  # the judge's CPU, the same way
    session = judge.sessions[judge.open(NAME, NAME)["session"]]
    heavy = json.dumps({"op": "report", "token": "x", "observation": [[[i] for i in range(20_000)]]}).encode() + b"\n"
    first, second = answered(session, heavy), answered(session, heavy)
    assert first > 0 and session.cpu > judge_server.MAX_SESSION_CPU and not session.received.spent
    assert second == 0 and kernel(session)(probe) == b""


def test_scenarios_issued_to_one_notebook_are_bounded_in_size_as_well_as_number(monkeypatch):
    """Scenarios are kept until the notebook ends: 10 000 of the largest (19 kB of JSON each)
    held ~450 MB of the judge's memory for one notebook. Past ``MAX_ISSUED_BYTES`` (here a
    smaller one, the same rule) a kernel asking for more gets none."""
    monkeypatch.setattr(judge_server, "MAX_ISSUED_BYTES", 300_000)
    judge = judge_server.Judge(ROOT)
    session = judge.sessions[judge.open(NAME, NAME)["session"]]
    batches = 0
    while "scenarios" in (reply := judge.scenarios(session, "check_dead_parameters", "all")):
        batches += 1
    assert reply == {"error": "too many scenarios"} and len(session.issued) < judge_server.MAX_ISSUED
    largest_batch = session.issued_bytes / batches * 4  # (no batch is four times the mean)
    assert judge_server.MAX_ISSUED_BYTES <= session.issued_bytes <= judge_server.MAX_ISSUED_BYTES + largest_batch


def test_json_nested_past_what_pythons_parser_takes_is_refused_like_any_garbage():
    judge = judge_server.Judge(ROOT)
    kernel, _ = _kernel_connection(judge)
    reader = kernel.makefile("rb")
    kernel.sendall(b"[" * 200_000 + b"\n")  # json.loads raised RecursionError, which ended the connection
    assert json.loads(reader.readline()) == {"error": "not JSON"}
    kernel.sendall(b'{"op": "nothing", "id": "3"}\n')
    assert json.loads(reader.readline()) == {"error": "unknown request", "id": "3"}
