"""The lessons' words, from ``lessons/locale/<lang>.toml`` (see autograder.messages)."""
from pathlib import Path

from autograder.messages import Messages

_LESSONS = Messages(Path(__file__).parent / "locale")
text = _LESSONS.text
raw = _LESSONS.raw
