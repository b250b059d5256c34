# bpe-kit. Every target makes and uses its own .venv; nothing is installed outside it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SUBMISSION ?= starter
OUT ?= results
NAME ?= trace

.PHONY: help venv grade test fixtures data corpus bench handout gradescope lab clean

help:
	@echo "make grade [SUBMISSION=starter] [OUT=results]   grade a submission (a folder holding bpe/, or a zip)"
	@echo "make test                                       the kit's own tests"
	@echo "make lab NAME=trace                             run a lab against your bpe"
	@echo "make fixtures | data | bench | handout | gradescope | clean"

$(VENV)/.ok: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "bpe-kit needs Python 3.11 or newer (found " + sys.version.split()[0] + ")")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]))' > $(VENV)/requirements.txt
	$(PY) -m pip install --quiet -r $(VENV)/requirements.txt
	@touch $@

venv: $(VENV)/.ok

grade: venv
	$(PY) -m grader grade $(SUBMISSION) --out $(OUT)

test: venv
	$(PY) -m pytest

fixtures: venv
	$(PY) -m grader.fixtures

corpus: venv
	$(PY) data/corpus.py

data: venv
	$(PY) data/corpus.py
	$(PY) data/fetch.py

lab: venv
	$(PY) -m assignment.labs $(NAME) --submission $(SUBMISSION)

bench: venv
	$(PY) bench/run.py

handout: venv
	$(PY) -m grader.release handout

gradescope: venv
	$(PY) -m grader.release gradescope

clean:
	rm -rf $(VENV) results dist build .pytest_cache .hypothesis data/corpus
