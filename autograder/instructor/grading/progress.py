"""The progress bar of a grading run."""
from __future__ import annotations

import sys
import time


def show(done: int, total: int, failed: int, started: float, stream=None, extra: str = "") -> None:
    stream = stream or sys.stderr
    elapsed = time.perf_counter() - started
    left = elapsed / done * (total - done) if done else 0
    width = 30
    bar = "#" * (width * done // max(total, 1)) + "." * (width - width * done // max(total, 1))
    line = f"[{bar}] {done}/{total} graded, {failed} failed, {elapsed:.0f} s, ~{left:.0f} s left{extra}"
    end = "\r" if stream.isatty() and done < total else "\n"
    stream.write(("\r" if stream.isatty() else "") + line + end)
    stream.flush()
