# Set-up and everyday commands. Each target creates the virtual environment first if needed.
#   make lab     open the lessons in JupyterLab (the students' view)
#   make instructor  open the course in JupyterLab with formgrader (the instructor's view)
#   make test    run the whole test suite (what CI runs), browser tests included
#   make quick   the fast part of the suite (no Jupyter kernels, nbgrader runs or browser)
#   make release regenerate release/ (and release/<language>/) from source/ with nbgrader
#   make bench   print the benchmark figures

PYTHON ?= python3
VENV ?= .venv
# torch 2.13.0 is a CPU build on the course machines; elsewhere, pick a CPU wheel, e.g.
#   make TORCH="torch --index-url https://download.pytorch.org/whl/cpu"
TORCH ?= torch==2.13.0
BIN := $(abspath $(VENV))/bin
export PATH := $(BIN):$(PATH)
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

# The browser tests drive Debian's Chromium (root installs it on first use).
CHROMIUM ?= /usr/bin/chromium

.PHONY: lab instructor test quick release bench

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install $(TORCH)
	$(BIN)/pip install -e '.[test]'
	touch $@

# Both views are started by lessons/lab.py (the browser tests start them the same way);
# Binder gets the students' view through the `start` script.
lab: $(VENV)/.installed
	$(BIN)/python -m lessons.lab $(ROOT_FLAG)

instructor: $(VENV)/.installed
	$(BIN)/python -m lessons.lab --instructor $(ROOT_FLAG)

$(CHROMIUM):
	apt-get update -qq && apt-get install -y -qq chromium

# The Chinese lessons' plots and pages need a CJK font: Debian's Noto CJK (root installs it).
CJK_FONT ?= /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
$(CJK_FONT):
	apt-get update -qq && apt-get install -y -qq fonts-noto-cjk

# The gradebook tests also run against PostgreSQL: .ci/postgres installs and starts it (root)
# and prints its URL; without it those tests are skipped.
test: $(VENV)/.installed $(CHROMIUM) $(CJK_FONT)
	AUTOGRADER_TEST_POSTGRES=$$(.ci/postgres || true) CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest

quick: $(VENV)/.installed
	$(BIN)/python -m pytest -m "not slow"

release: $(VENV)/.installed
	for a in $$(ls source); do $(BIN)/nbgrader generate_assignment $$a --force; done
	$(BIN)/python -m autograder.instructor.course

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/bench_course.py
	$(BIN)/python benchmarks/bench_widgets.py
