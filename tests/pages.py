"""Reading a rendered page as a browser's parser does: what in it could run script or make a
request that the same page of an honest notebook does not (``live``), and what text in it
MathJax would typeset that the honest page's does not (``typeset``)."""
from __future__ import annotations

import re
from functools import lru_cache
from html.parser import HTMLParser

HOST = "zz-attacker.invalid"  # where the attacks' markup would send its requests
LIVE_TAGS = ("script", "iframe", "frame", "meta", "base", "object", "embed", "link", "style", "form", "svg", "math",
             "video", "audio", "source", "img")


def elements(html: str) -> list:
    """Every start tag with its attributes, as a browser's parser sees them."""
    return _parsed(html).found


@lru_cache(maxsize=4)
def _known(baseline: str) -> frozenset:
    """The elements of a baseline page, parsed once: the attack tests compare ~100 pages
    with the same honest student's (0.2 s a parse of a feedback page)."""
    return frozenset((tag, tuple(sorted(attrs.items()))) for tag, attrs in elements(baseline))


def live(html: str, baseline: str) -> list:
    """What in ``html`` could run script or make a request that ``baseline`` (the same
    template around an empty notebook) does not."""
    base = _known(baseline)
    found = []
    for tag, attrs in elements(html):
        if (tag, tuple(sorted(attrs.items()))) in base:
            continue
        if tag in LIVE_TAGS and tag != "img":
            found.append(tag)
        for name, value in attrs.items():
            value = (value or "").lower()
            fetches = name == "style" and any(word in value for word in ("url(", "image-set(", "@import", "expression("))
            if name.startswith("on") or "javascript:" in value or HOST in value or fetches:
                found.append(f"{tag}[{name}={value[:60]}]")
        if tag == "img" and not (attrs.get("src") or "").startswith("data:image/png;base64,"):
            found.append(f"img[src={attrs.get('src', '')[:60]}]")
    return found


# MathJax's scan of a page (2.7's tex2jax ``scanElement``; 3's FindTeX keeps the same rules under its
# own class names): an element of a skipped tag is not looked into unless it has the process class;
# an element with the ignore class hides its text from the scan, down to an element that has the
# process class. nbconvert's configuration (``mathjax.html.j2``) names the delimiters.
SKIPPED_TAGS = {"script", "noscript", "style", "textarea", "pre", "code", "annotation", "annotation-xml"}
IGNORE = re.compile(r"(^|\s)(tex2jax_ignore|mathjax_ignore)(\s|$)")
PROCESS = re.compile(r"(^|\s)(tex2jax_process|mathjax_process)(\s|$)")
TEX = re.compile(r"\$|\\\(|\\\[|\\begin\s*\{")  # $, \(, \[ and \begin{...}: where MathJax starts math
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Parsed(HTMLParser):
    """One pass of a browser's parser over a page: every start tag with its attributes
    (``found``), and the texts MathJax would scan for math, not in a skipped tag nor in an
    ignored element (``texts``)."""

    def __init__(self):
        super().__init__()
        self.found = []
        self.stack = [("", False, False)]  # (tag, skipped, ignored) of each open element
        self.texts = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))
        if tag in VOID:
            return
        _, skipped, ignored = self.stack[-1]
        classes = dict(attrs).get("class") or ""
        process = bool(PROCESS.search(classes))
        skipped = skipped or (tag in SKIPPED_TAGS and not process) or bool(re.search(r"(^|\s)MathJax", classes))
        ignored = (ignored or bool(IGNORE.search(classes))) and not process
        self.stack.append((tag, skipped, ignored))

    def handle_endtag(self, tag):
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth][0] == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data):
        _, skipped, ignored = self.stack[-1]
        if not skipped and not ignored and TEX.search(data):
            self.texts.append(data.strip())


@lru_cache(maxsize=4)
def _parsed(html: str) -> Parsed:
    """A page parsed once for both questions (``live`` and ``typeset`` ask of the same pages:
    a parse of a feedback page is ~0.2 s)."""
    parser = Parsed()
    parser.feed(html)
    parser.close()
    return parser


def scanned(html: str) -> list:
    return _parsed(html).texts


@lru_cache(maxsize=4)
def _scanned_baseline(baseline: str) -> frozenset:
    """The texts MathJax scans in a baseline page, found once (as ``_known``)."""
    return frozenset(scanned(baseline))


def typeset(html: str, baseline: str) -> list:
    """The texts of ``html`` with a TeX delimiter that MathJax would typeset and ``baseline``
    (the same page of an honest notebook: the instructor's own math) has not."""
    known = _scanned_baseline(baseline)
    return [text[:80] for text in scanned(html) if text not in known]
