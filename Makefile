# Every target bootstraps .venv from pyproject.toml when it is missing or stale: `make demo`
# installs only leanchain itself (the offline demo needs nothing else); every other target
# installs leanchain with every extra and dev tool (the `dev` extra), once.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORE_STAMP := $(VENV)/.installed-core
STAMP := $(VENV)/.installed
SRC := src tests benchmarks examples
# The full install, when it is there and up to date, serves the demo too.
DEMO_STAMP := $(if $(shell [ $(STAMP) -nt pyproject.toml ] && echo yes),$(STAMP),$(CORE_STAMP))

.DEFAULT_GOAL := help
.PHONY: help install test lint typecheck pytest demo bench docs clean

help: ## List the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(CORE_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(CORE_STAMP)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP) ## Create .venv and install leanchain with every extra and dev tool

lint: $(STAMP) ## ruff check and ruff format --check
	$(BIN)/ruff check $(SRC)
	$(BIN)/ruff format --check $(SRC)

typecheck: $(STAMP) ## mypy --strict over src/ and the typing tests
	$(BIN)/mypy src tests/typing

pytest: $(STAMP) ## The test suite only
	$(BIN)/pytest

test: lint typecheck pytest ## Every check: lint, format, types, tests

demo: $(DEMO_STAMP) ## Run the agents end to end offline; installs only the core (a real model: see README)
	$(BIN)/leanchain demo $(ARGS)

bench: $(STAMP) ## Run every benchmark (medians, ratios), then the side-by-side comparison with LangChain, pydantic-ai and the OpenAI Agents SDK
	$(BIN)/python -m benchmarks
	$(BIN)/python -m benchmarks.compare

docs: $(STAMP) ## Build the documentation site with --strict
	$(BIN)/mkdocs build --strict

clean: ## Remove the virtual environment and build outputs
	rm -rf $(VENV) site .mypy_cache .ruff_cache .pytest_cache
