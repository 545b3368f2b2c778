"""A verdict: passed, or failed with a named mistake and the message that explains it.

A verdict is data: the mistake's id (what the class summary counts), the key of its
message in the locale files and the fields the message is filled with. It travels as
JSON between the kernel, the judge and the grader, and is put into words only where a
person reads it, in that person's language.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import messages


@dataclass(frozen=True)
class Verdict:
    ok: bool
    mistake: str = ""
    key: str = ""
    fields: dict = field(default_factory=dict)

    @classmethod
    def fail(cls, mistake: str, key: str, **fields) -> "Verdict":
        return cls(False, mistake, key, fields)

    @property
    def message(self) -> str:
        """The explanation, in the reader's language ("" for a pass)."""
        return messages.render(self.key, self.fields) if self.key else ""

    def to_data(self) -> dict:
        return {"ok": self.ok, "mistake": self.mistake, "key": self.key, "fields": self.fields}

    @classmethod
    def from_data(cls, data) -> "Verdict":
        """A verdict from JSON that may come from an untrusted process: anything malformed
        becomes a failure without a message of its own."""
        if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
            return cls(False, "malformed", "judge.malformed")
        mistake, key, fields = data.get("mistake", ""), data.get("key", ""), data.get("fields", {})
        if not (isinstance(mistake, str) and isinstance(key, str) and isinstance(fields, dict)):
            return cls(False, "malformed", "judge.malformed")
        return cls(data["ok"], mistake[:100], key[:100], fields)

    @classmethod
    def reported_failure(cls, data) -> "Verdict":
        """The failure a kernel reports for a student's function (it raised, say): a failure
        whatever the data claims. A kernel that sends ``{"ok": true}`` as its "error" gets
        the verdict of a malformed report, never a pass."""
        verdict = cls.from_data(data)
        return verdict if not verdict.ok and verdict.key else cls(False, "malformed", "judge.malformed")


PASS = Verdict(True)


def nested(key: str, **fields) -> dict:
    """A field whose value is itself a message (rendered in the same language)."""
    return {"$key": key, "fields": fields}
