"""A generated question as both sides show it: its variant (``judges.variants.Variant.shown``:
code, numbers, order of the options; never a key) as Markdown and as HTML, in a language.

The student's kernel shows it in the question cell (``lessons.quiz.question``), and the grader
draws it again for the pages (``instructor.passes.redraw_questions``): what formgrader and the
feedback page show of a question cell is the grader's drawing, never what the kernel printed,
and for an honest kernel the two are the same text. Its words come from the grader's locale
files (``quiz.*``); only code and numbers are generated.
"""
from __future__ import annotations

import html
import re

from .. import messages
from .variants import label

LETTERS = ("a", "b", "c", "d")


def _parts(qid: str, shown: dict, lang: str | None = None) -> tuple:
    """(note, given, code, [(letter, text)]) of a variant; option texts are Markdown (code in backticks).
    ``lang`` None: the reader's language, as ``messages.text``."""
    params, literals = shown["params"], shown["params"].get("literals", {})
    if shown.get("missing"):
        note = messages.render("quiz.variant_missing", {}, lang)
    else:
        note = "" if shown.get("published") else messages.render("quiz.variant", {"label": label(shown)}, lang)
    given = messages.render(f"quiz.{qid}.given", params, lang) if messages.has(f"quiz.{qid}.given") else ""
    options = [(letter, f"`{literals[option]}`" if option in literals else messages.render(f"quiz.{qid}.{option}", params, lang))
               for letter, option in zip(LETTERS, shown["order"])]
    return note, given, shown["code"], options


def question_markdown(qid: str, shown: dict, lang: str | None = None) -> str:
    """A graded question's variant as Markdown: what is given, the code, the options."""
    note, given, code, options = _parts(qid, shown, lang)
    parts = [f"*{note}*" if note else "", given, f"```python\n{code}```",
             "\n".join(f"- **{letter})** {said}" for letter, said in options)]  # (an exercise's code has none)
    return "\n\n".join(part for part in parts if part)


def _inline(text: str) -> str:
    """Markdown's inline code as HTML, everything else escaped."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))


def question_html(qid: str, shown: dict, lang: str | None = None) -> str:
    """The same as HTML, in the few tags a graded notebook's pages keep (``SafeForPages``)."""
    note, given, code, options = _parts(qid, shown, lang)
    parts = [f"<p><em>{_inline(note)}</em></p>" if note else "", f"<p>{_inline(given)}</p>" if given else "",
             f"<pre><code>{html.escape(code, quote=False)}</code></pre>",
             "<ul>" + "".join(f"<li><b>{letter})</b> {_inline(said)}</li>" for letter, said in options) + "</ul>"
             if options else ""]
    return "".join(parts)


def question_data(qid: str, shown: dict, lang: str | None = None) -> dict:
    """What a question cell displays (its output's data)."""
    markdown = question_markdown(qid, shown, lang)
    return {"text/html": question_html(qid, shown, lang), "text/markdown": markdown, "text/plain": markdown}
