"""Reading a rendered page as a browser's parser does: what in it could run script or make a
request that the same page of an honest notebook does not (``live``)."""
from __future__ import annotations

from functools import lru_cache
from html.parser import HTMLParser

HOST = "zz-attacker.invalid"  # where the attacks' markup would send its requests
LIVE_TAGS = ("script", "iframe", "frame", "meta", "base", "object", "embed", "link", "style", "form", "svg", "math",
             "video", "audio", "source", "img")


class Elements(HTMLParser):
    """Every start tag with its attributes, as a browser's parser sees them."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def elements(html: str) -> list:
    parser = Elements()
    parser.feed(html)
    return parser.found


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


