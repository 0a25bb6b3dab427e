# `make run` and `make test` each bootstrap .venv on their own (and skip the
# install when pyproject.toml has not changed since the last one).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check
PYTEST_ARGS ?=

.PHONY: run test bench clean-venv

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.run-installed: pyproject.toml | $(PY)
	$(PIP) install -q -e .
	touch $@

$(VENV)/.test-installed: pyproject.toml $(VENV)/.run-installed
	$(PIP) install -q -e '.[test]'
	touch $@

run: $(VENV)/.run-installed
	$(VENV)/bin/paperdesk

test: $(VENV)/.test-installed
	$(PY) -m pytest $(PYTEST_ARGS)

bench: $(VENV)/.test-installed
	bash bench/run_all.sh

clean-venv:
	rm -rf $(VENV)
