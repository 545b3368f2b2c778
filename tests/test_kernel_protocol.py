"""kernels.protocol: the frames a kernel sends become a message of Jupyter's protocol, or a refusal,
each paid for; read with jupyter_client's own Session, signed with its key, as a kernel signs them.
(The same, from a real kernel and through the grader, in tests/passes/test_judged_execute.py.)"""
from __future__ import annotations

import json
import pickle

from jupyter_client.session import Session

from autograder.instructor.kernels.protocol import LINE, OUTPUT_COST, Budget, Reader


def _frames(session: Session, kind: str, content, parent=None, header=None, metadata=b"{}") -> list:
    parts = [header if header is not None else session.pack(session.msg_header(kind)),
             json.dumps(parent if parent is not None else {"msg_id": "cell-1"}).encode(), metadata,
             content if isinstance(content, bytes) else json.dumps(content).encode()]
    return [b"topic", b"<IDS|MSG>", session.sign(parts), *parts]


def _reader(total: float = float("inf")) -> tuple:
    session = Session(key=b"secret")
    return session, Reader(Session(key=b"secret"), Budget(total))


def test_a_message_of_the_protocol_keeps_only_what_the_grader_reads():
    session, reader = _reader()
    msg = reader.read(_frames(session, "stream", {"name": "stdout", "text": "hi\n", "extra": "x" * 100}), "iopub")
    assert msg["msg_type"] == "stream" and msg["content"] == {"name": "stdout", "text": "hi\n"}
    assert msg["parent_header"] == {"msg_id": "cell-1"} and msg["buffers"] == [] and msg["metadata"] == {}
    assert msg["receipt"].refused is None and msg["receipt"].paid


def test_what_the_protocol_does_not_say_is_refused_and_keeps_its_parent():
    session, reader = _reader()
    reader.last_request = "last"
    cases = {
        "content a list": _frames(session, "stream", [1, 2]),
        "a stream named otherwise": _frames(session, "stream", {"name": "x" * 300, "text": "y"}),
        "a display id not a string": _frames(session, "display_data", {"data": {}, "metadata": {},
                                                                      "transient": {"display_id": [1]}}),
        "an execution count in words": _frames(session, "execute_result", {"data": {}, "metadata": {},
                                                                          "execution_count": "7"}),
        "pickle, not JSON": _frames(session, "stream", pickle.dumps({"name": "stdout", "text": "x"})),
        "a type the channel does not have": _frames(session, "execute_reply", {"status": "ok"}),
        "metadata a list": _frames(session, "stream", {"name": "stdout", "text": "x"}, metadata=b"[1]"),
    }
    for what, frames in cases.items():
        msg = reader.read(frames, "iopub")
        assert msg["receipt"].refused and msg["msg_type"] == "refused", what
        assert msg["parent_header"] == {"msg_id": "cell-1"}, what
    unreadable = reader.read(_frames(session, "stream", {"name": "stdout", "text": "x"}, parent=[1]), "iopub")
    assert unreadable["receipt"].refused and unreadable["parent_header"] == {"msg_id": "last"}


def test_signatures_are_checked_and_used_once():
    session, reader = _reader()
    frames = _frames(session, "stream", {"name": "stdout", "text": "x"})
    assert reader.read(frames, "iopub")["receipt"].refused is None
    assert reader.read(frames, "iopub")["receipt"].refused == "a signature seen before"
    forged = frames[:2] + [b"0" * 64] + frames[3:]
    assert reader.read(forged, "iopub")["receipt"].refused == "a wrong signature"
    assert reader.read([b"topic", b"no delimiter"], "iopub")["receipt"].refused


def test_a_refused_reply_on_shell_is_an_error_reply():
    session, reader = _reader()
    msg = reader.read(_frames(session, "execute_reply", [1]), "shell")
    assert msg["msg_type"] == "execute_reply" and msg["content"]["status"] == "error"
    assert msg["receipt"].refused and msg["parent_header"] == {"msg_id": "cell-1"}


def test_every_byte_is_paid_for_and_an_output_pays_for_what_its_pages_make_of_it():
    session, reader = _reader(total=10_000)
    frames = _frames(session, "comm_msg", {"comm_id": "c", "data": {}}) + [b"b" * 3000]
    assert reader.read(frames, "iopub")["receipt"].weight == sum(len(f) for f in frames)  # buffers too
    plain = _frames(session, "stream", {"name": "stdout", "text": "x" * 100})
    escaped = _frames(session, "stream", {"name": "stdout", "text": "&" * 100})
    lines = _frames(session, "stream", {"name": "stdout", "text": "\u2028" * 100})
    weights = [reader.read(f, "iopub")["receipt"].weight - sum(len(x) for x in f) for f in (plain, escaped, lines)]
    assert weights[0] >= OUTPUT_COST and weights[1] >= weights[0] + 400 and weights[2] >= weights[0] + 100 * LINE
    assert not reader.read(_frames(session, "stream", {"name": "stdout", "text": "z" * 9000}), "iopub")["receipt"].paid
