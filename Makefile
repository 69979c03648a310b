# Two commands matter: `make run` and `make test`. Both create .venv when missing.
# The virtualenv's interpreter (PYTHON=... picks another). By default the distribution's own
# /usr/bin/python3 when it is 3.11+ and can make a virtualenv, else the first python3 on PATH:
# distributions (Debian, Ubuntu, Fedora) and the Docker image's python:3.11-slim build CPython
# with profile-guided and link-time optimization, which pyenv and plain source builds skip by
# default, and the server spends about 12% less CPU per action on such a build
# (docs/performance.md, "The interpreter").
PYTHON ?= $(shell for p in /usr/bin/python3 python3; do "$$p" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && { echo "$$p"; exit 0; }; done; echo python3)
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
LINT_PATHS := $(wildcard server tests bench migrations setup.py)

.PHONY: run test lint format bench install dev clean native

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# Stamp files so repeated runs skip pip when pyproject.toml has not changed.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(VENV)/.installed $@

install: $(VENV)/.installed
dev: $(VENV)/.installed-dev

run: install
	$(BIN)/spades db upgrade
	$(BIN)/spades serve --host $(HOST) --port $(PORT)

lint: dev
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/mypy

format: dev
	$(BIN)/ruff format $(LINT_PATHS)
	$(BIN)/ruff check --fix $(LINT_PATHS)

# The browser tests run in a second pytest beside the rest (tests/run_suite.py says why);
# PYTEST_ARGS="..." runs one pytest with exactly those arguments.
test: lint
	$(BIN)/python tests/run_suite.py $(PYTEST_ARGS)

bench: dev
	$(BIN)/python -m pip install -q -e '.[bench]' || echo "open-spiel unavailable: engine bench runs without the comparison"
	$(BIN)/python -m bench.engine --repeat 3

# Optional: the strong (Hard) bot's modules compiled by mypyc, about a sixth of the CPU for
# the same answers; needs a C compiler and the Python headers, and nothing needs it
# (docs/bots.md, "Hard compiled"). Build again after editing them: a stale build is not used.
native: dev
	$(BIN)/python -m spades.bots.native build

clean:
	$(BIN)/python -m spades.bots.native clean 2>/dev/null || true
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
