# bpe-kit. Every target makes and uses its own .venv; nothing is installed outside it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SUBMISSION ?= starter
OUT ?= results
NAME ?= trace
SUBMISSIONS ?= submissions
JOBS ?= 2

.PHONY: help venv grade grade-cs336 test fixtures kill-matrix data corpus bench handout gradescope lab class clean

help:
	@echo "make grade [SUBMISSION=starter] [OUT=results]   grade a submission (a folder holding bpe/, or a zip)"
	@echo "make grade-cs336 REPO=path [STUDENT_PYTHON=path] grade a CS336 assignment-1 repository (or zip)"
	@echo "make test                                       the kit's own tests"
	@echo "make lab NAME=trace                             run a lab against your bpe"
	@echo "make class SUBMISSIONS=dir [OUT=dir] [JOBS=2] grade a whole class: gradebook.csv, report.html"
	@echo "make fixtures | kill-matrix | corpus | data | bench | handout | gradescope | clean"

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

grade-cs336: venv
	@test -n "$(REPO)" || { echo "usage: make grade-cs336 REPO=path/to/assignment1-basics [STUDENT_PYTHON=path]"; exit 2; }
	$(PY) -m grader grade --contract cs336 "$(REPO)" --out $(OUT) $(if $(STUDENT_PYTHON),--python "$(STUDENT_PYTHON)")

test: venv
	$(PY) -m pytest

fixtures: venv
	$(PY) -m grader.fixtures

kill-matrix: venv
	$(PY) tests/submissions/kill_matrix.py

corpus: venv
	$(PY) data/corpus.py

data: venv
	$(PY) data/corpus.py
	$(PY) data/fetch.py

lab: venv
	$(PY) -m assignment.labs $(NAME) --submission $(SUBMISSION)

bench: venv
	@# The optional extra `bench` (pyproject.toml): one package at a time, so a contender that
	@# cannot install here is skipped by the bench with a note instead of stopping it.
	@$(PY) -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["bench"]))' > $(VENV)/bench-requirements.txt
	@while read -r req; do $(PY) -m pip install --quiet "$$req" || echo "bench: could not install $$req; it will be skipped"; done < $(VENV)/bench-requirements.txt
	$(PY) bench/run.py $(BENCH_ARGS)

handout: venv
	$(PY) -m assignment.build --check
	$(PY) -m grader.release handout

class: venv
	$(PY) -m grader.farm grade $(SUBMISSIONS) --out $(OUT) --jobs $(JOBS)

gradescope: venv
	$(PY) -m grader.release gradescope

clean:
	rm -rf $(VENV) results dist build .pytest_cache .hypothesis data/corpus
