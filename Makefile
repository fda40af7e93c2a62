# Two set-up commands: `make demo` and `make test`. Both create .venv when it is missing.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-all bench figures clean-venv

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

# The paper's tables and figures from results/: runs notebooks/*.ipynb headless, writes results/report/.
# RESULTS=results/small for the small experiments' results.
RESULTS ?= results
REPORT ?= $(RESULTS)/report
figures: $(STAMP)
	$(PY) -m smartcrawl.analysis.notebooks run --results $(RESULTS) --out $(REPORT)

clean-venv:
	rm -rf $(VENV)
