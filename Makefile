# Two set-up commands: `make demo` and `make test`. Both create .venv when it is missing.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-all bench clean-venv

$(STAMP): requirements.txt requirements-dev.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -r requirements-dev.txt
	$(PY) -m pip install -q --no-deps -e .
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m smartcrawl.demo

test: $(STAMP)
	$(PY) -m pytest -q

test-all: $(STAMP)
	$(PY) -m pytest -q -m ""

bench: $(STAMP)
	$(PY) benchmarks/prepare_cdx.py

clean-venv:
	rm -rf $(VENV)
