# Two commands on a fresh clone: `make book` and `make test` (see README.md).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.requirements-installed
HTML   := _build/html
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
# bash, for `set -o pipefail` when the build's output is also written to a log.
SHELL  := /bin/bash

.PHONY: book test lint golden lab lab-source bench venv clean

venv: $(STAMP)

# (Re)create the virtual environment when requirements.txt or pyproject.toml change.
$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] >= (3, 11), "Python 3.11 or newer is required, found " + sys.version; print("Using Python", sys.version.split()[0], "from $(PYTHON)")' 
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@# Build Matplotlib's font cache now, so that no chapter prints the
	@# "building the font cache" notice into its outputs.
	$(BIN)/python -c "import matplotlib.pyplot"
	touch $(STAMP)

# Build the HTML from scratch (every chapter executed), warnings are errors.
# The log, with each chapter's execution time, is kept in _build/book.log
# (tests/test_build_log.py checks it is free of warnings). The chapters execute
# two at a time (BOOK_JOBS, book/_ext/build_book.py), each kernel on one BLAS
# thread, so that the two share the machine's two cores instead of fighting over them.
book: $(STAMP)
	rm -rf $(HTML) _build/.doctrees _build/jupyter_execute $(NOTEBOOKS)
	mkdir -p _build
	set -o pipefail; OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
	  $(BIN)/python book/_ext/build_book.py build . --all -W -n --keep-going 2>&1 | tee _build/book.log
	@echo "The book is at $(abspath $(HTML)/index.html)"

# Every test: unit tests of pcalib, doctests, chapter/reference-notebook sync,
# nbval on the reference notebooks, in TEST_JOBS pytest-xdist workers (each
# notebook's cells stay on one worker: --dist loadscope); then the two browser
# tests side by side (the rendered book waits on Chromium more than it computes;
# JupyterLab runs the chapters): the rendered book's report goes to
# _build/test_rendered_book.log and is printed when both are done; either failing
# fails the target. Every process, kernels included, runs one BLAS thread: two
# workers with OpenBLAS's default threads each oversubscribe two cores, and a
# chapter's kernel then runs minutes instead of seconds.
BROWSER_TESTS := tests/test_rendered_book.py tests/test_jupyterlab.py
TEST_JOBS ?= auto
ONE_BLAS_THREAD := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
test: lint book
	$(ONE_BLAS_THREAD) $(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadscope \
	  $(addprefix --ignore=,$(BROWSER_TESTS))
	$(ONE_BLAS_THREAD) $(BIN)/python -m pytest tests/test_rendered_book.py \
	  > _build/test_rendered_book.log 2>&1 & \
	  rendered=$$!; \
	  $(ONE_BLAS_THREAD) $(BIN)/python -m pytest tests/test_jupyterlab.py; lab=$$?; \
	  wait $$rendered; rendered=$$?; \
	  cat _build/test_rendered_book.log; \
	  test $$lab -eq 0 && test $$rendered -eq 0

# ruff's lint (numpydoc docstring rules for pcalib's public API) and format check.
lint: $(STAMP)
	$(BIN)/ruff check pcalib tests benchmarks
	$(BIN)/ruff format --check pcalib tests benchmarks

# Re-execute the chapters and rewrite the reference notebooks in tests/notebooks.
golden: $(STAMP)
	$(BIN)/python tests/golden.py

# Open the book in JupyterLab: the notebooks `make book` writes to _build/notebooks
# (book/_ext/reader_notebooks.py: glued numbers, citations, cross-references,
# equation numbers and listings resolved as in the book; jupyterlab-myst renders
# the rest). `make lab-source` opens the chapters' sources instead, each .md as a
# notebook through jupytext, for editing. The settings: .md files open as
# notebooks; no news or update checks (a popup, and a network request).
# tests/test_jupyterlab.py starts JupyterLab with this same LAB_SETTINGS line
# (keep it one line of JSON).
NOTEBOOKS := _build/notebooks
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json
LAB_SETTINGS := {"@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}}, "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}}
lab: $(STAMP)
	test -d $(NOTEBOOKS) || $(MAKE) book
	mkdir -p $(dir $(LAB_OVERRIDES))
	echo '$(LAB_SETTINGS)' > $(LAB_OVERRIDES)
	$(BIN)/jupyter lab --notebook-dir=$(NOTEBOOKS) $(ROOT_FLAG)

lab-source: $(STAMP)
	mkdir -p $(dir $(LAB_OVERRIDES))
	echo '$(LAB_SETTINGS)' > $(LAB_OVERRIDES)
	$(BIN)/jupyter lab --notebook-dir=book $(ROOT_FLAG)

# Timings of pcalib against scikit-learn and LAPACK (prints a table, asserts nothing).
bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf _build
