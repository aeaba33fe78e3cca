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

.PHONY: lab test test-ui bench lint format notebooks clean help student slides html

help:
	@echo "make lab       open the course in JupyterLab (installs on first run)"
	@echo "make test      run the unit tests and every notebook under strict nbval"
	@echo "make test-ui   open every notebook in headless Chromium (needs chromium)"
	@echo "make bench     speed benchmarks (installs the CPU build of torch 2.13.0)"
	@echo "make lint      ruff"
	@echo "make notebooks rebuild and re-execute the notebooks from notebooks/src"
	@echo "make student   student copies without solutions in build/student/{ko,en}/"
	@echo "make slides    reveal.js slide decks in build/slides/ (npm once, for offline use)"
	@echo "make html      the executed notebooks as a static site in build/site/ (npm once)"

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python >= 3.10 is needed, found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[lab,dev]'
	@touch $(STAMP)

# Token authentication stays on and the server listens on this machine only. Jupyter
# refuses to run as root unless told; containers (and CI) often are root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

# The lessons' language: Korean, or English when the locale (LC_ALL, else LANG) is English;
# `make lab COURSE_LANG=en` (or ko) chooses. JupyterLab opens at that language's first lesson;
# tools/jupyter_lab_config.py hides the lesson sources and turns off the news prompt.
COURSE_LANG ?= $(if $(filter en%,$(or $(LC_ALL),$(LANG))),en,ko)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab --config=tools/jupyter_lab_config.py --ServerApp.root_dir=notebooks \
		--LabApp.default_url=/lab/tree/$(COURSE_LANG)/00_start_here.ipynb $(ALLOW_ROOT)

test: $(STAMP)
	MPLBACKEND=Agg $(THREADS) $(PY) -m pytest --doctest-modules qkv_helpers tests
	$(THREADS) $(PY) -m pytest $(NBVAL) notebooks

# torch is only for comparing speed: never a dependency of the package or of make test.
# 2.13.0 is a CPU build (a plain "pip install torch" may pull a multi-GB CUDA build).
$(VENV)/.torch: $(STAMP)
	$(PY) -m pip install --quiet torch==2.13.0
	@touch $@

bench: $(STAMP) $(VENV)/.torch
	@for f in benchmarks/bench_*.py; do echo "== $$f"; $(THREADS) $(PY) $$f || exit 1; done

# Every notebook in headless Chromium (Debian's /usr/bin/chromium; no `playwright install`).
# Screenshots go to build/ui/. See tools/ui_test.py.
test-ui: $(STAMP)
	$(THREADS) $(PY) tools/ui_test.py

lint: $(STAMP)
	$(VENV)/bin/ruff check qkv_helpers tests benchmarks tools

format: $(STAMP)
	$(VENV)/bin/ruff format qkv_helpers tests benchmarks tools

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis

notebooks: $(STAMP)
	$(PY) tools/build_notebooks.py

# The classroom kit (docs/teacher-guide.*.md). slides and html fetch reveal.js and the widget
# manager once with npm into build/vendor/ so the pages work offline; without npm they link
# a CDN instead and say so.
student: $(STAMP)
	$(PY) tools/classroom.py student

slides: $(STAMP)
	$(PY) tools/classroom.py slides

html: $(STAMP)
	$(PY) tools/classroom.py html
