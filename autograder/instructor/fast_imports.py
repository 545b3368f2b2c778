"""One import the instructor's processes skip: every process that reads a notebook would pay it.

nbformat imports jsonschema, and jsonschema imports rfc3987_syntax when it is installed (it
is: jupyter_events, which Jupyter's server needs, asks for ``jsonschema[format-nongpl]``).
rfc3987_syntax builds a Lark grammar at import: ``import nbformat`` takes 1.05 s with it and
0.15 s without. The grammar serves IRI format checks, which neither nbformat's schema nor
nbgrader ever makes.
"""
import sys


def skip_iri_grammar() -> None:
    """Make ``import rfc3987_syntax`` fail, so jsonschema goes without its IRI checks. Call it
    before nbformat is imported."""
    sys.modules.setdefault("rfc3987_syntax", None)
