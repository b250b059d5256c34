# bpe-kit. Every target makes and uses its own .venv; nothing is installed outside it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
KIT := $(VENV)/bin/bpe-kit
SUBMISSION ?= starter
OUT ?= results
ZIP ?= submission.zip
NAME ?= trace
SUBMISSIONS ?= submissions
JOBS ?= 2

.PHONY: help venv lock grade grade-cs336 submission test fixtures kill-matrix data corpus bench handout gradescope lab class clean

help:
	@echo "make grade [SUBMISSION=starter] [OUT=results]   grade a submission (a folder holding bpe/, or a zip)"
	@echo "make grade PART=2 | TESTS=expr                 a partial grade: one part, or tests matching a -k expr"
	@echo "make submission [SUBMISSION=starter]            zip SUBMISSION/bpe into submission.zip (as the handout's)"
	@echo "make grade-cs336 REPO=path [STUDENT_PYTHON=path] grade a CS336 assignment-1 repository (or zip)"
	@echo "make test                                       the kit's own tests"
	@echo "make lab NAME=trace                             run a lab against your bpe"
	@echo "make class SUBMISSIONS=dir [OUT=dir] [JOBS=2] grade a whole class: gradebook.csv, report.html"
	@echo "make lock                                       rewrite requirements/*.txt after a pin in pyproject.toml changed"
	@echo "make fixtures | kill-matrix | corpus | data | bench | handout | gradescope | clean"

# The venv is the lock, nothing more: rebuilt from scratch (--clear) whenever the lock changes.
$(VENV)/.ok: requirements/dev.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "bpe-kit needs Python 3.11 or newer (found " + sys.version.split()[0] + ")")'
	$(PYTHON) -m venv --clear $(VENV)
	$(PY) -m pip install --quiet --require-hashes -r requirements/dev.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	@touch $@

venv: $(VENV)/.ok

# requirements/*.txt, from pyproject.toml: grading (the handout and Gradescope), dev (+ the dev
# group and the staff extra: make venv, CI), bench (+ the bench extra). Each is resolved within the one before it, so
# the packages they share have one version. Run after changing a pin in pyproject.toml; commit all three.
UV_LOCK = $(VENV)/bin/uv pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes \
	--custom-compile-command "make lock" --quiet
lock: venv
	$(UV_LOCK) -o requirements/grading.txt
	$(UV_LOCK) --group dev --extra staff -c requirements/grading.txt -o requirements/dev.txt
	$(UV_LOCK) --group dev --extra staff --extra bench -c requirements/dev.txt -o requirements/bench.txt

grade: venv
	$(KIT) grade $(SUBMISSION) --out $(OUT)$(if $(PART), --part '$(PART)')$(if $(TESTS), --tests '$(TESTS)')

submission: venv
	$(KIT) zip $(SUBMISSION) --out $(ZIP)

grade-cs336: venv
	@test -n "$(REPO)" || { echo "usage: make grade-cs336 REPO=path/to/assignment1-basics [STUDENT_PYTHON=path]"; exit 2; }
	$(KIT) grade --contract cs336 "$(REPO)" --out $(OUT) $(if $(STUDENT_PYTHON),--python "$(STUDENT_PYTHON)")

test: venv
	$(PY) -m pytest

fixtures: venv
	$(KIT) fixtures

kill-matrix: venv
	$(PY) tests/submissions/kill_matrix.py

corpus: venv
	$(PY) data/corpus.py

data: venv
	$(PY) data/corpus.py
	$(PY) data/fetch.py

lab: venv
	$(KIT) lab $(NAME) --submission $(SUBMISSION)

bench: venv
	@# The optional extra `bench` (pyproject.toml), locked with the dev set in requirements/bench.txt.
	@# If it cannot install here, the bench still runs and skips the contenders it cannot import.
	@$(PY) -m pip install --quiet --require-hashes -r requirements/bench.txt || echo "bench: could not install requirements/bench.txt; contenders missing here will be skipped"
	$(PY) bench/run.py $(BENCH_ARGS)

handout: venv
	$(PY) -m assignment.build --check
	$(KIT) release handout

class: venv
	$(KIT) farm grade $(SUBMISSIONS) --out $(OUT) --jobs $(JOBS)

gradescope: venv
	$(KIT) release gradescope

clean:
	rm -rf $(VENV) results submission.zip dist build .pytest_cache .hypothesis data/corpus
