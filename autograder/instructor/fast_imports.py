"""One import the instructor's processes skip: every process that reads a notebook would pay it.

nbformat imports jsonschema, and jsonschema imports rfc3987_syntax when it is installed (it
is: jupyter_events, which Jupyter's server needs, asks for ``jsonschema[format-nongpl]``).
rfc3987_syntax builds a Lark grammar at import: ``import nbformat`` takes 1.05 s with it and
0.15 s without. The grammar serves IRI format checks, which neither nbformat's schema nor
nbgrader ever makes.
"""
import importlib.abc
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

    ``nbgrader.api`` is changed when it is imported, not imported here: every process that reads
    the course's ``nbgrader_config.py`` calls this, and ``autograder grade`` reads it before it
    knows whether it will need nbgrader in this process (importing nbgrader costs 1.0 s of CPU).
    """
    api = sys.modules.get("nbgrader.api")
    if api is not None:
        api.get_alembic_version = _gradebook_head
    elif not any(isinstance(finder, _ChangeOnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _ChangeOnImport())


class _ChangeOnImport(importlib.abc.MetaPathFinder):
    """Finds ``nbgrader.api`` as the other finders do, and changes it once its code has run."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "nbgrader.api":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:  # the spec the import would use, its loader wrapped if it can be
                if hasattr(spec.loader, "exec_module"):
                    spec.loader = _Changed(spec.loader)
                return spec
        return None


class _Changed(importlib.abc.Loader):
    """The loader the other finders gave, which changes the module after running its code."""

    def __init__(self, loader):
        self.loader = loader

    def __getattr__(self, name):  # (get_source, get_filename, ... as the loader it wraps)
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        module.get_alembic_version = _gradebook_head


def _gradebook_head() -> str:
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    return ScriptDirectory(ALEMBIC_DIR).get_revisions("heads")[0].revision
