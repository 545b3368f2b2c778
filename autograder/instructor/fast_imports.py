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


def gradebook_head_in_process() -> None:
    """Let nbgrader read its gradebook schema's version in this process, not in a subprocess.

    A new gradebook is stamped with the newest of nbgrader's migrations. nbgrader asks
    ``alembic heads`` for it in a subprocess. That command imports nbgrader to read a name that
    is written in the migration scripts, so every new gradebook cost 3.5 s of CPU; reading the
    scripts here takes 0.13 s. The answer is the same: the first head the command would print.
    """
    import nbgrader.api

    nbgrader.api.get_alembic_version = _gradebook_head


def _gradebook_head() -> str:
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    return ScriptDirectory(ALEMBIC_DIR).get_revisions("heads")[0].revision
