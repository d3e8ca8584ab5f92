# Two commands on a fresh clone: `make book` and `make test` (see README.md).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.requirements-installed
HTML   := _build/html
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
# bash, for `set -o pipefail` when the build's output is also written to a log.
SHELL  := /bin/bash

.PHONY: book rebuild unit test test-portable lint golden lab lab-source bench venv clean

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

# Build the HTML (every chapter executed; warnings are errors), unless the build
# in _build is current: book/_ext/build_key.py hashes what a build reads (book/,
# pcalib/, _static/, _config.yml, _toc.yml, requirements.txt, pyproject.toml and
# the Python version), and a finished build records that key in $(BOOK_KEY).
# `make rebuild` builds anew whatever the key.
BOOK_KEY := _build/book-key.txt
book: $(STAMP)
	@if $(BIN)/python book/_ext/build_key.py --check $(BOOK_KEY); then \
	  echo "The book in $(HTML) was built from these sources: not rebuilt (make rebuild forces it)."; \
	else $(MAKE) --no-print-directory rebuild; fi
	@echo "The book is at $(abspath $(HTML)/index.html)"

# The build itself. Its log, with each chapter's execution time, is kept in
# _build/book.log (tests/book/test_build_log.py checks it is free of warnings). The
# chapters execute two at a time (BOOK_JOBS, book/_ext/build_book.py), each
# kernel on one BLAS thread, so that the two share the machine's two cores
# instead of fighting over them. The key is taken before the build starts, so an
# edit made during the build makes the next `make book` build again.
rebuild: $(STAMP)
	rm -rf $(HTML) _build/.doctrees _build/jupyter_execute $(NOTEBOOKS) $(BOOK_KEY)
	mkdir -p _build
	set -o pipefail; key=$$($(BIN)/python book/_ext/build_key.py) && \
	  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
	  $(BIN)/python book/_ext/build_book.py build . --all -W -n --keep-going 2>&1 \
	  | tee _build/book.log && echo $$key > $(BOOK_KEY)

# Tests that read the built book, and the browser tests (which also need Chromium).
BOOK_TESTS := tests/book/test_build_log.py tests/book/test_reader_notebooks.py
BROWSER_TESTS := tests/browser/test_rendered_book.py tests/browser/test_jupyterlab.py
NEEDS_BOOK := tests/book/notebooks $(BOOK_TESTS) $(BROWSER_TESTS)
TEST_JOBS ?= auto
# Every test process, kernels included, runs one BLAS thread: two pytest workers
# with OpenBLAS's default threads each oversubscribe two cores, and a chapter's
# kernel then runs minutes instead of seconds.
ONE_BLAS_THREAD := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
PYTEST := $(ONE_BLAS_THREAD) $(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadscope

# The fast tests, no book: lint, then pcalib's unit, property and doctests, the
# vocabulary and API tests, scikit-learn's estimator checks and its own test files
# run against pcalib, and the checks of the chapters' text against their
# reference notebooks (sync, glue precision, prose numbers), in TEST_JOBS
# pytest-xdist workers.
unit: lint
	$(PYTEST) $(addprefix --ignore=,$(NEEDS_BOOK))

# Every test: `make unit`, the book (built only if it is not current), nbval on
# the reference notebooks (each notebook's cells on one worker: --dist loadscope)
# and the tests of the build; then the two browser tests side by side (the
# rendered book waits on Chromium more than it computes; JupyterLab runs the
# chapters): the rendered book's report goes to _build/test_rendered_book.log and
# is printed when both are done; either failing fails the target.
test: unit book
	$(PYTEST) tests/book/notebooks $(BOOK_TESTS)
	$(ONE_BLAS_THREAD) $(BIN)/python -m pytest tests/browser/test_rendered_book.py \
	  > _build/test_rendered_book.log 2>&1 & \
	  rendered=$$!; \
	  $(ONE_BLAS_THREAD) $(BIN)/python -m pytest tests/browser/test_jupyterlab.py; lab=$$?; \
	  wait $$rendered; rendered=$$?; \
	  cat _build/test_rendered_book.log; \
	  test $$lab -eq 0 && test $$rendered -eq 0

# The unit tests and nbval under every OpenBLAS kernel this CPU can run, at 1 and
# 2 BLAS threads (tests/book/portability.py; KERNELS=Prescott,Haswell and THREADS=1
# choose fewer): prints the kernels it cannot run here and why, and a table of
# failures per kernel and thread count.
KERNELS ?=
THREADS ?= 1,2
test-portable: $(STAMP)
	$(BIN)/python tests/book/portability.py $(if $(KERNELS),--kernels $(KERNELS)) --threads $(THREADS)

# ruff's lint (numpydoc docstring rules for pcalib's public API) and format check.
lint: $(STAMP)
	$(BIN)/ruff check pcalib tests benchmarks
	$(BIN)/ruff format --check pcalib tests benchmarks

# Re-execute the chapters and rewrite the reference notebooks in tests/book/notebooks.
golden: $(STAMP)
	$(BIN)/python tests/book/golden.py

# Open the book in JupyterLab: the notebooks `make book` writes to _build/notebooks
# (book/_ext/reader_notebooks.py: glued numbers, citations, cross-references,
# equation numbers and listings resolved as in the book; jupyterlab-myst renders
# the rest). `make lab-source` opens the chapters' sources instead, each .md as a
# notebook through jupytext, for editing. The settings: .md files open as
# notebooks; no news or update checks (a popup, and a network request).
# tests/browser/test_jupyterlab.py starts JupyterLab with this same LAB_SETTINGS line
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
# `$(BIN)/python benchmarks/run.py --write-readme` also rewrites the figures of
# benchmarks/README.md from the run.
bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf _build
