"""A verdict: passed, or failed with a named mistake and the message that explains it.

A verdict is data: the mistake's id (what the class summary counts), the key of its
message in the locale files and the fields the message is filled with. It travels as
JSON between the kernel, the judge and the grader, and is put into words only where a
person reads it, in that person's language.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import messages
from . import reported


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
        (fields of another shape than every verdict's: ``reported.plain``) becomes a failure
        without a message of its own. A pass carries no fields."""
        if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
            return cls(False, "malformed", "judge.malformed")
        if data["ok"]:
            return PASS
        mistake, key, fields = data.get("mistake", ""), data.get("key", ""), data.get("fields", {})
        if not (isinstance(mistake, str) and isinstance(key, str) and reported.plain(fields)):
            return cls(False, "malformed", "judge.malformed")
        return cls(False, mistake[:100], key[:100], fields)

    @classmethod
    def reported_failure(cls, data) -> "Verdict":
        """The failure a kernel reports for a student's function (it raised, say): a failure
        whatever the data claims. A kernel that sends ``{"ok": true}`` as its "error", a message
        no kernel gives or fields out of their declared types and ranges (``reported.fits``:
        ``10**400`` for a count, another message's key) gets the verdict of a malformed report,
        never a pass."""
        verdict = cls.from_data(data)
        if verdict.ok or not reported.fits(verdict.mistake, verdict.key, verdict.fields):
            return cls(False, "malformed", "judge.malformed")
        return verdict

    @classmethod
    def reported_diagnosis(cls, data) -> "Verdict":
        """A kernel's diagnosis of a training loop, which only explains (the judge decides from
        the parameters): a failure it names if it is one a kernel gives (``reported.fits``),
        else none (``PASS``), and the judge's own words say what is wrong."""
        verdict = cls.from_data(data)
        if verdict.ok or not reported.fits(verdict.mistake, verdict.key, verdict.fields):
            return PASS
        return verdict


PASS = Verdict(True)


def nested(key: str, **fields) -> dict:
    """A field whose value is itself a message (rendered in the same language)."""
    return {"$key": key, "fields": fields}
