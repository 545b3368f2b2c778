"""What the grader takes from a kernel: each message read as Jupyter's protocol says, and paid for.

A grading kernel runs the student's code, and that code holds the kernel's session key and
sockets: it can send any frames, validly signed, on any channel. jupyter_client hands on
whatever JSON it finds, and nbclient reads fields without checking them, so one message whose
content was a list (sent from a practice cell) raised ``AttributeError`` in the grader, and the
notebook was retried as the grader's own failure: every question scored 0. Here ``Reader.read``
turns the frames of one message into a message of the protocol, or into a refusal:

* it holds only the fields the grader and nbclient read, each of the protocol's type (a
  ``stream`` has a name, ``stdout`` or ``stderr``, and a text; a display has a MIME bundle of
  texts, JSON data for JSON types, metadata and perhaps a ``transient.display_id`` string; an
  execution count is a whole number; a parent header is at most a ``msg_id`` string), nothing
  else: no buffers, no message metadata, no ``code`` of ``execute_input``;
* anything else (frames that are not a signed message, a header, parent header, metadata or
  content that is not a JSON object, a field of the wrong type or missing, a message type the
  protocol does not have on that channel, JSON nested past ``MAX_DEPTH``) is ``refused``:
  the message keeps its parent (or, when that is unreadable, the request the client sent
  last: the running cell's), and a reply refused on the shell channel is an error reply.
  ``JudgedExecute`` turns a refusal into one error output in the running cell, saying so in
  the notebook's language: the cell that sent it, at most, loses its points.

Every message is paid for as it arrives, from one ``Budget`` per notebook (shared by every
kernel its restarts start): its raw size, every frame counted (identities, header, parent
header, metadata, content, buffers), whatever its type or channel; a message that makes an
output (``OUTPUTS``) pays ``OUTPUT_COST`` more, and more for each byte its pages make bigger
(``EXPANDS``). Its ``Receipt`` says what it cost and whether the budget had room for it.
Counting only the texts outputs carry missed outputs: 300 ``error`` messages of 198 000
characters each (a 57 MB autograded notebook, a 29 MB feedback page), and ``stream`` messages
whose *name* held 3 MB (the grading worker grew by 840 MB). An honest lesson notebook's kernel
sends 167-237 kB in all (185-275 messages; the instructor's four notebooks, measured), 180-260 kB
with what its outputs pay beyond their bytes.
"""
from __future__ import annotations

import hmac
import json
import re
from dataclasses import dataclass

DELIM = b"<IDS|MSG>"
MAX_DEPTH = 16  # nesting of JSON data in an output (an honest widget view or JSON output: 3)
MAX_NAME = 200  # characters of a message type, a display id, a message id
# What each output costs beyond its bytes: an output is a few hundred bytes of a notebook's JSON
# and of a page's HTML however little it holds (a one-character print: 90 bytes of JSON, 330 of
# the feedback page's HTML), so a notebook keeps at most budget / 500 outputs.
OUTPUT_COST = 500
# What a character of an output can become in the files made of it, beyond its own bytes
# (measured with nbformat and nbconvert's classic page): nbformat writes a text as a list of
# lines, each a quoted, indented string (a line break, 2 bytes of JSON, became 12 bytes of the
# notebook; so does each character ``str.splitlines`` breaks at, each string of a traceback and
# each item of JSON data); a page escapes & and < (``&amp;``: 5 bytes for 1), and an HTML
# output's tag may come back closed (``<li>`` as ``<li></li>``); an ANSI escape sequence becomes
# a <span class="..."> (11 bytes of JSON became 34 of the page, 18 became 81). Counted on the
# decoded text, however the JSON wrote it. Outputs that paid as they arrived are then at most
# as large in the notebook and its feedback page as what they paid.
LINE = 10
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
EXPANDS = (("&", 4), ("<", 8), (">", 4), ("'", 4), ('"', 4), ("\x1b", 64))
OUTPUTS = ("stream", "display_data", "execute_result", "update_display_data", "error")
JSON_MIME = re.compile(r"^application/(.*\+)?json$")
STATES = ("busy", "idle", "starting", "restarting", "dead")
SHELL_STATUS = ("ok", "error", "aborted")
REFUSED = "MalformedKernelMessage"  # the error name of a refused reply (JudgedExecute says why)


class Refused(ValueError):
    """Not a message of the protocol (the reason is for the log, never shown to a student)."""


@dataclass
class Receipt:
    size: int  # bytes of all its frames
    weight: int  # what it cost of the budget
    paid: bool  # the budget had room for it when it arrived
    refused: str | None = None  # why it is not a message of the protocol


class Budget:
    """What one notebook's kernels may send the grader in all; spent as messages arrive."""

    def __init__(self, total: float = float("inf")):
        self.total = total
        self.spent = 0

    def pay(self, weight: int) -> bool:
        """Take ``weight``; False once the budget is spent (then nothing more fits)."""
        self.spent += weight
        return self.spent <= self.total


def surcharge(content: dict) -> int:
    """What an output's content costs beyond its bytes, in the files made of it (``EXPANDS``)."""
    extra = 0
    for value in _leaves(content):
        if type(value) is str:
            extra += LINE * (1 + sum(value.count(c) for c in LINE_BREAKS))
            extra += sum(value.count(c) * cost for c, cost in EXPANDS)
        else:
            extra += LINE
    return extra


def _leaves(value):
    """Every string, number and empty container in JSON data (walked without recursion)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict and item:
            stack.extend(item.keys())
            stack.extend(item.values())
        elif type(item) is list and item:
            stack.extend(item)
        else:
            yield item


# -- checking fields ---------------------------------------------------------------------------------
def _str(value, what: str, limit: int | None = None) -> str:
    if type(value) is not str or (limit is not None and len(value) > limit):
        raise Refused(f"{what} is not a string" + (f" of at most {limit} characters" if limit else ""))
    return value


def _text(value, what: str) -> str:
    """A string, or nbformat's list of strings (joined)."""
    if type(value) is list and all(type(v) is str for v in value):
        return "".join(value)
    return _str(value, what)


def _count(value, what: str) -> int:
    if type(value) is not int or not 0 <= value <= 10 ** 9:
        raise Refused(f"{what} is not an execution count")
    return value


def _json(value, what: str):
    """JSON data nested at most ``MAX_DEPTH`` deep (walked without recursion)."""
    level = [value]
    for _ in range(MAX_DEPTH + 1):
        level = [v for item in level if type(item) in (list, dict)
                 for v in (item.values() if type(item) is dict else item)]
        if not level:
            return value
    raise Refused(f"{what} is nested too deep")


def _dict(value, what: str) -> dict:
    if type(value) is not dict:
        raise Refused(f"{what} is not an object")
    return _json(value, what)


def _bundle(data) -> dict:
    """A MIME bundle as nbformat keeps it: texts, and any JSON for JSON types."""
    bundle = {}
    for mime, value in _dict(data, "data").items():
        bundle[mime] = value if JSON_MIME.match(mime) else _text(value, f"data[{mime[:40]!r}]")
    return bundle


def _display(content: dict, with_count: bool = False) -> dict:
    out = {"data": _bundle(content.get("data")), "metadata": _dict(content.get("metadata", {}), "metadata")}
    transient = content.get("transient")
    if transient is not None and transient != {}:
        display_id = _dict(transient, "transient").get("display_id")
        if display_id is not None:
            out["transient"] = {"display_id": _str(display_id, "display_id", MAX_NAME)}
    if with_count:
        count = content.get("execution_count")
        out["execution_count"] = None if count is None else _count(count, "execution_count")
    return out


def _error(content: dict) -> dict:
    traceback = content.get("traceback")
    if type(traceback) is not list or not all(type(line) is str for line in traceback):
        raise Refused("traceback is not a list of strings")
    return {"ename": _str(content.get("ename"), "ename"), "evalue": _str(content.get("evalue"), "evalue"),
            "traceback": traceback}


def _execute_input(content: dict) -> dict:
    count = content.get("execution_count")
    return {} if count is None else {"execution_count": _count(count, "execution_count")}


def _one_of(value, allowed: tuple, what: str):
    if type(value) is not str or value not in allowed:
        raise Refused(f"{what} is not one of {', '.join(allowed)}")
    return value


def _status(content: dict) -> dict:
    return {"execution_state": _one_of(content.get("execution_state"), STATES, "execution_state")}


def _stream(content: dict) -> dict:
    return {"name": _one_of(content.get("name"), ("stdout", "stderr"), "a stream's name"),
            "text": _text(content.get("text"), "text")}


def _clear_output(content: dict) -> dict:
    wait = content.get("wait", False)
    if type(wait) is not bool:
        raise Refused("wait is not true or false")
    return {"wait": wait}


def _unread(content: dict) -> dict:
    """A message the grader does not read (widgets are the kernel's to draw; nbclient ignores the rest)."""
    return {}


IOPUB = {"status": _status, "stream": _stream, "display_data": _display, "update_display_data": _display,
         "execute_result": lambda content: _display(content, with_count=True), "error": _error,
         "clear_output": _clear_output, "execute_input": _execute_input,
         **dict.fromkeys(("comm_open", "comm_msg", "comm_close", "iopub_welcome", "debug_event", "shutdown_reply"),
                         _unread)}


def _language_info(info) -> dict:
    """What nbclient copies into the notebook's metadata (nbformat's fields, each a short string;
    CodeMirror's mode a string or an object of short strings and numbers)."""
    info = _dict(info, "language_info")
    out = {key: _str(info[key], key, MAX_NAME) for key in ("name", "version", "mimetype", "file_extension",
                                                           "pygments_lexer", "nbconvert_exporter") if key in info}
    _str(out.get("name"), "language_info.name", MAX_NAME)
    mode = info.get("codemirror_mode")
    if type(mode) is dict:
        out["codemirror_mode"] = {_str(k, "codemirror_mode", MAX_NAME): v if type(v) is int
                                  else _str(v, "codemirror_mode", MAX_NAME) for k, v in mode.items()}
    elif mode is not None:
        out["codemirror_mode"] = _str(mode, "codemirror_mode", MAX_NAME)
    return out


def _reply(kind: str, content: dict) -> dict:
    status = _one_of(content.get("status"), SHELL_STATUS, "a reply's status")
    out = {"status": status}
    if status == "error":
        out.update(_error(content))
    if kind == "execute_reply" and content.get("execution_count") is not None:
        out["execution_count"] = _count(content["execution_count"], "execution_count")
    if kind == "kernel_info_reply" and status == "ok":
        version = _str(content.get("protocol_version"), "protocol_version", MAX_NAME)
        if not re.fullmatch(r"5\.\d+(\.\d+)?", version):
            raise Refused("protocol_version is not 5.x")
        out.update(protocol_version=version, language_info=_language_info(content.get("language_info")))
    return out


def _parent(parent) -> dict:
    """A parent header as the grader reads it: its ``msg_id`` (a message may have no parent)."""
    if type(parent) is not dict:
        raise Refused("parent_header is not an object")
    if "msg_id" not in parent:
        return {}
    return {"msg_id": _str(parent["msg_id"], "parent msg_id", MAX_NAME)}


# -- reading a message -------------------------------------------------------------------------------
class Reader:
    """Reads the messages of one kernel client's channels (``read``), paying for each from
    ``budget``; ``last_request`` is the id of the client's last request (``ReadyClient``)."""

    def __init__(self, session, budget: Budget):
        self.session = session
        self.budget = budget
        self.last_request: str | None = None

    def read(self, frames: list, channel: str) -> dict:
        """The message the frames hold, as the protocol has it on ``channel`` ("iopub" or
        "shell"), or a refusal; with its ``receipt``. Never raises."""
        size = sum(len(frame) for frame in frames)
        parent: dict = {}
        try:
            ends = next((i for i, f in enumerate(frames) if len(f) == len(DELIM) and bytes(f) == DELIM), None)
            if ends is None or len(frames) < ends + 6:
                raise Refused("not a signed message of five frames")
            signed = self._signed([bytes(f) for f in frames[ends + 1:ends + 6]])
            parent = _parent(json.loads(signed[1]))  # (first: a refusal keeps the parent it names)
            header, metadata, content = (json.loads(part) for part in (signed[0], signed[2], signed[3]))
            if type(header) is not dict or type(metadata) is not dict:
                raise Refused("header or metadata is not an object")
            kind = _str(header.get("msg_type"), "msg_type", MAX_NAME)
            msg_id = _str(header.get("msg_id"), "msg_id", MAX_NAME)
            if type(content) is not dict:
                raise Refused("content is not an object")
            content = self._content(channel, kind, content)
        except Exception as exc:  # noqa: BLE001  (whatever a kernel sent: refused, never the grader's failure)
            paid = self.budget.pay(size)
            return self._refused(channel, parent, Receipt(size, size, paid, str(exc)[:300] or type(exc).__name__))
        makes_output = kind in OUTPUTS or (kind == "execute_reply" and content["status"] == "error")
        cost = size + (OUTPUT_COST + surcharge(content) if makes_output else 0)
        header = {"msg_id": msg_id, "msg_type": kind}  # (no date: nbclient's timings take the grader's clock)
        return {"header": header, "msg_id": msg_id, "msg_type": kind, "parent_header": parent, "metadata": {},
                "content": content, "buffers": [], "receipt": Receipt(size, cost, self.budget.pay(cost))}

    def _signed(self, frames: list) -> list:
        """The four signed parts of a message's five frames (header, parent header, metadata,
        content), its signature checked as jupyter_client checks it (and never seen before).
        ``read`` parses them as JSON itself: never with the session's configured unpacker
        (which may be pickle), and no dates parsed (jupyter_client's parsing of both headers'
        dates was 45 % of the time it took to read a message)."""
        session = self.session
        signature = frames[0]
        if session.auth is not None:
            if not signature:
                raise Refused("an unsigned message")
            if signature in session.digest_history:
                raise Refused("a signature seen before")
            session._add_digest(signature)
            if not hmac.compare_digest(signature, session.sign(frames[1:5])):
                raise Refused("a wrong signature")
        return frames[1:5]

    @staticmethod
    def _content(channel: str, kind: str, content: dict) -> dict:
        if channel == "shell":
            if not kind.endswith("_reply"):
                raise Refused("not a reply on the shell channel")
            return _reply(kind, content)
        if kind not in IOPUB:
            raise Refused("not a message type of the IOPub channel")
        return IOPUB[kind](content)

    def _refused(self, channel: str, parent: dict, receipt: Receipt) -> dict:
        """A refused message, attributed to its parent, else to the client's last request."""
        if not parent and self.last_request is not None:
            parent = {"msg_id": self.last_request}
        if channel == "shell":
            kind, content = "execute_reply", {"status": "error", "ename": REFUSED, "evalue": "", "traceback": []}
        else:
            kind, content = "refused", {}
        return {"header": {"msg_id": "", "msg_type": kind}, "msg_id": "", "msg_type": kind, "parent_header": parent,
                "metadata": {}, "content": content, "buffers": [], "receipt": receipt}
