"""Source notebooks run top to bottom in a real kernel: no error, nothing on stderr."""
from __future__ import annotations

import re
import shutil
import subprocess

import nbformat
import pytest
from helpers import ROOT, isolated_env
from nbclient import NotebookClient

pytestmark = pytest.mark.slow
NOTEBOOKS = sorted((ROOT / "source").glob("*/*.ipynb"))


@pytest.fixture(scope="session")
def kernel_env(tmp_path_factory):
    env = isolated_env(tmp_path_factory.mktemp("home"))
    # build matplotlib's font cache once, as a student's first run would, outside the notebook
    subprocess.run([shutil.which("python", path=env["PATH"]), "-c", "import matplotlib.pyplot"],
                   env=env, check=True, capture_output=True)
    return env


def run_notebook(path, env, workdir):
    nb = nbformat.read(str(path), as_version=4)
    client = NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(workdir)}})
    client.execute(env=env)
    return nb


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_source_notebook_runs_clean(path, kernel_env, tmp_path):
    nb = run_notebook(path, kernel_env, tmp_path)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out.output_type != "error", f"cell {cell.id}: {out.get('ename')}: {out.get('evalue')}"
            assert not (out.output_type == "stream" and out.name == "stderr"), \
                f"cell {cell.id} wrote to stderr: {out.text[:500]}"
    # every widget cell produced a widget, every test cell printed its pass line
    widget_cells = [c for c in nb.cells if c.cell_type == "code" and "widgets." in c.source
                    and "import" not in c.source]
    assert widget_cells
    for cell in widget_cells:
        kinds = {k for out in cell.outputs for k in out.get("data", {})}
        assert "application/vnd.jupyter.widget-view+json" in kinds, cell.id
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    for cell in graded:
        text = "".join(o.get("text", "") for o in cell.outputs)
        assert "All checks passed" in text or re.match(r"Question \d: right\. \S", text), f"{cell.id}: {text}"
