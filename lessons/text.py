"""The lessons' words, from ``lessons/locale/<lang>.toml`` and the ``[lessons]`` table of each
exercise's locale files (its hints: see autograder.messages)."""
from pathlib import Path

from autograder.messages import Messages

_LESSONS = Messages(Path(__file__).parent / "locale", "lessons")
text = _LESSONS.text
raw = _LESSONS.raw
