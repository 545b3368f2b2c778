"""The project's own files agree with each other: pyproject, environment.yml, README, CI."""
from __future__ import annotations

import re

import pytest
import tomllib
import yaml
from helpers import ROOT

# pip distribution → conda-forge package (when the names differ)
CONDA_NAME = {"torch": "pytorch-cpu"}


def _requirement(spec: str) -> tuple[str, str]:
    name = re.match(r"[A-Za-z0-9_.\-]+", spec).group(0)
    return name.lower(), spec[len(name):].strip()


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = dict(_requirement(d) for d in env["dependencies"] if isinstance(d, str))
    # what conda-forge lacks comes from PyPI in the environment's pip part (JupyterLab's language packs)
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    conda.update(_requirement(d) for d in pip if not d.startswith("-"))
    for dep in project["dependencies"]:
        name, version = _requirement(dep)
        conda_name = CONDA_NAME.get(name, name)
        assert conda_name in conda, f"{dep} from pyproject.toml is missing in environment.yml"
        assert conda[conda_name] == version, f"{name}: pyproject {version!r} vs conda {conda[conda_name]!r}"
    pip_part = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert "-e ." in pip_part, "Binder must install this package"
    assert "pytorch" not in conda and "cpu" in CONDA_NAME["torch"], "Binder must get a CPU-only build"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci/run").read_text()
    assert "make test" in readme and "make lab" in readme
    assert re.search(r"^make test$", ci, re.M)


def test_fixed_assignment_layout():
    for name in ["01_requires_grad", "02_backward", "03_zeroing_grad", "04_no_grad"]:
        assert (ROOT / "source" / name / f"{name}.ipynb").exists()
        assert (ROOT / "release" / name / f"{name}.ipynb").exists()


def test_a_students_install_is_lean_and_the_cluster_extra_has_dask():
    """Only ``--scheduler`` needs Dask: it is in the ``cluster`` extra, which the README's
    cluster section installs, not in every student's and Binder's install."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {_requirement(d)[0] for d in project["dependencies"]}
    assert "distributed" not in names and "bokeh" not in names
    assert any(_requirement(d)[0] == "distributed" for d in project["optional-dependencies"]["cluster"])
    assert "pip install '.[cluster]'" in (ROOT / "README.md").read_text()
    assert project["requires-python"] == ">=3.11"  # messages.py reads TOML with tomllib


@pytest.mark.slow
def test_a_wheel_has_every_exercise_folder_and_its_words(tmp_path):
    """A wheel built from the packages as they are (a copy, without an earlier build's leftovers)
    has each exercise's folder: its spec, judge and observer, and its locale file in every
    language, which pyproject's package-data must name (a wheel without them grades in English
    keys, or not at all); and nothing of the layout before the folders."""
    import shutil
    import subprocess
    import sys
    import zipfile

    from autograder.exercises import ALL
    from autograder.messages import LANGUAGES

    source = tmp_path / "source"
    for package in ("autograder", "lessons"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path / "dist"), str(source)], check=True, capture_output=True, timeout=300)
    [wheel] = (tmp_path / "dist").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for spec in ALL:
        folder = f"autograder/exercises/{spec.name}"
        expected = {f"{folder}/spec.py", f"{folder}/judge.py"} | {f"{folder}/locale/{lang}.toml" for lang in LANGUAGES}
        if spec.kind == "function" and spec.observer.startswith("autograder.exercises."):
            expected.add(f"{folder}/observe.py")
        assert expected <= names, sorted(expected - names)
    assert "autograder/exercises/__init__.py" in names
    assert not [n for n in names if n.startswith(("autograder/wire/exercises/", "autograder/judges/lesson"))]
