# Set-up and everyday commands. Each target creates the virtual environment first if needed.
#   make lab     open the lessons in JupyterLab
#   make test    run the whole test suite (what CI runs)
#   make quick   the fast part of the suite (no Jupyter kernels, no nbgrader runs)
#   make release regenerate release/ from source/ with nbgrader
#   make bench   print the benchmark figures

PYTHON ?= python3
VENV ?= .venv
# torch 2.13.0 is a CPU build on the course machines; elsewhere, pick a CPU wheel, e.g.
#   make TORCH="torch --index-url https://download.pytorch.org/whl/cpu"
TORCH ?= torch==2.13.0
BIN := $(abspath $(VENV))/bin
export PATH := $(BIN):$(PATH)
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab test quick release bench

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install $(TORCH)
	$(BIN)/pip install -e '.[test]'
	touch $@

lab: $(VENV)/.installed
	$(BIN)/jupyter lab --ServerApp.root_dir=release $(ROOT_FLAG)

test: $(VENV)/.installed
	$(BIN)/python -m pytest

quick: $(VENV)/.installed
	$(BIN)/python -m pytest -m "not slow"

release: $(VENV)/.installed
	for a in $$(ls source); do $(BIN)/nbgrader generate_assignment $$a --force; done

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/bench_course.py
