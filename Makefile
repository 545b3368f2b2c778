# Set-up and everyday commands. Each target creates the virtual environment first if needed.
#   make lab     open the lessons in JupyterLab (the students' view); LANG=zh: in Chinese
#   make instructor  open the course in JupyterLab with formgrader (the instructor's view)
#   make test    run the whole test suite (what CI runs), browser tests included
#   make quick   the fast part of the suite (no Jupyter kernels, nbgrader runs or browser)
#   make release regenerate release/ (and release/<language>/) from source/ with nbgrader
#   make bench   print the benchmark figures
#   make labextension  rebuild the course's JupyterLab extension (lessons/labextension; needs Node)

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

.PHONY: lab instructor test quick release bench labextension

$(VENV)/.installed: pyproject.toml lessons/labextension/package.json
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install $(TORCH)
	$(BIN)/pip install -e '.[test]'
	# the course's JupyterLab extension (prebuilt in lessons/labextension): a wheel installs it, an
	# editable install needs JupyterLab's own link to it
	$(BIN)/jupyter labextension develop --overwrite .
	touch $@

# Both views are started by lessons/lab.py (the browser tests start them the same way);
# Binder gets the students' view through the `start` script.
# `make lab LANG=zh` (en es pt zh fr sv): JupyterLab in that language, opened on its lessons.
# Only a LANG given on make's command line counts (the shell's LANG=en_US.UTF-8 is a locale, not
# a choice); make would export it to every command as a locale, `zh`, so it is not exported then.
LESSONS_LANG := $(if $(filter command line,$(origin LANG)),$(LANG))
ifeq ($(origin LANG),command line)
unexport LANG
endif

lab: $(VENV)/.installed
	$(BIN)/python -m lessons.lab $(if $(LESSONS_LANG),--lang $(LESSONS_LANG)) $(ROOT_FLAG)

instructor: $(VENV)/.installed
	$(BIN)/python -m lessons.lab --instructor $(if $(LESSONS_LANG),--lang $(LESSONS_LANG)) $(ROOT_FLAG)

$(CHROMIUM):
	apt-get update -qq && apt-get install -y -qq chromium

# The Chinese lessons' plots and pages need a CJK font: Debian's Noto CJK (root installs it).
CJK_FONT ?= /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
$(CJK_FONT):
	apt-get update -qq && apt-get install -y -qq fonts-noto-cjk

# The browser tests serve the pages' MathJax 2 from Debian's copy (root installs it).
MATHJAX ?= /usr/share/javascript/mathjax
$(MATHJAX)/MathJax.js:
	apt-get update -qq && apt-get install -y -qq libjs-mathjax

# The hub test (tests/test_hub.py) runs JupyterHub's proxy, configurable-http-proxy, from npm:
# the version tests/hub/package-lock.json pins, which needs Node 20 or later.
HUB_PROXY := tests/hub/node_modules/.bin/configurable-http-proxy
$(HUB_PROXY): tests/hub/package.json tests/hub/package-lock.json
	command -v npm >/dev/null || (apt-get update -qq && apt-get install -y -qq nodejs npm)
	node -e 'process.exit(parseInt(process.versions.node) >= 20 ? 0 : 1)' || \
	  { echo "configurable-http-proxy needs Node 20 or later, this is $$(node --version)" >&2; exit 1; }
	npm ci --prefix tests/hub --no-audit --no-fund
	touch $@

# The suite runs on two workers (pytest-xdist; tests/conftest.py says how it is split): a
# module's tests stay together, so its graded class or JupyterLab server is made once.
TEST_WORKERS ?= -n 2 --dist loadscope --no-loadscope-reorder

# The gradebook tests also run against PostgreSQL: .ci/postgres installs and starts it (root)
# and prints its URL; without it those tests are skipped.
test: $(VENV)/.installed $(CHROMIUM) $(CJK_FONT) $(MATHJAX)/MathJax.js $(HUB_PROXY)
	AUTOGRADER_TEST_POSTGRES=$$(.ci/postgres || true) CHROMIUM=$(CHROMIUM) MATHJAX=$(MATHJAX) $(BIN)/python -m pytest $(TEST_WORKERS) --durations=30

quick: $(VENV)/.installed
	$(BIN)/python -m pytest -m "not slow" $(TEST_WORKERS)

release: $(VENV)/.installed
	for a in $$(ls source); do $(BIN)/nbgrader generate_assignment $$a --force; done
	$(BIN)/python -m autograder.instructor.course

# The course's JupyterLab extension (labextension/src: the Validate button in the notebook's language)
# is built into lessons/labextension, which is committed, so set-up needs no Node. After changing
# its source, rebuild it (Node 20 or later, npm; the builder is the one labextension/package-lock.json pins).
labextension: $(VENV)/.installed
	npm ci --prefix labextension --no-audit --no-fund
	rm -rf lessons/labextension
	cd labextension && PATH="$(BIN):$$PATH" jupyter-builder build .
	$(BIN)/jupyter labextension develop --overwrite .

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/bench_course.py
	$(BIN)/python benchmarks/bench_widgets.py
