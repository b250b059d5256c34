# bpe-kit. Every target makes and uses its own .venv; nothing is installed outside it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
KIT := $(VENV)/bin/bpe-kit
GRADER := $(PY) -m grader
# `make grade LANG=zh` (or zh_CN.UTF-8): a LANG given on make's command line is the grade's language,
# passed as --lang, so that an LC_ALL or LANGUAGE in the environment cannot outvote it. Without it the
# grader reads the environment itself (grader/i18n.py); Gradescope's and the farm's are settings.
LANG_OPT = $(if $(filter command line,$(origin LANG)), --lang '$(LANG)')
SUBMISSION ?= starter
OUT ?= results
ZIP ?= submission.zip
NAME ?= trace
SUBMISSIONS ?= submissions
JOBS ?= 2

.PHONY: help venv lock locale grade grade-cs336 submission test mutation fixtures kill-matrix stability data corpus bench handout gradescope lab class clean

help:
	@echo "make grade [SUBMISSION=starter] [OUT=results]   grade a submission (a folder holding bpe/, or a zip)"
	@echo "make grade PART=2 | TESTS=expr                 a partial grade: one part, or tests matching a -k expr"
	@echo "make grade LANG=zh                             the report and the feedback in Chinese (also gradescope, class)"
	@echo "make submission [SUBMISSION=starter]            zip SUBMISSION/bpe into submission.zip (as the handout's)"
	@echo "make grade-cs336 REPO=path [STUDENT_PYTHON=path] [IGNORE_REQUIRES_PYTHON=1] grade a CS336 assignment-1 repository (or zip)"
	@echo "make test                                       the kit's own tests"
	@echo "make mutation [MODULES=a,b] [SAMPLE=60] [MATCH=text] [JOBS=2]  the graded suite's mutation score (tests/mutation/)"
	@echo "make lab NAME=trace                             run a lab against your bpe"
	@echo "make class SUBMISSIONS=dir [OUT=dir] [JOBS=2] grade a whole class: gradebook.csv, report.html"
	@echo "make lock                                       rewrite requirements/*.txt after a pin in pyproject.toml changed"
	@echo "make handout [LANG=zh]                          dist/handout.zip for students (LANG=zh: dist/handout-zh.zip, in Chinese)"
	@echo "make locale                                     extract the grader's messages into grader/locale/, compile the .mo"
	@echo "make fixtures | kill-matrix | stability | corpus | data | bench | gradescope | clean"

# Two stamps, two sets. `.ok`: the grading set (requirements/grading.txt, what a student's grade
# needs), in a venv rebuilt from scratch (--clear) whenever that lock changes. `.dev`: the dev set
# (requirements/dev.txt: the grading set's pins plus the kit's own tools) installed on top, only by
# the targets that need it (test, lock, kill-matrix, bench, ...), so a first `make grade` installs
# the grading set alone. dev.txt holds every pin of grading.txt, so a venv with the dev set already
# has the grading set and `make grade` leaves it as it is.
# The grader's own bytecode, written once here: every grade runs it in two fresh processes (the
# command, then pytest), which may not write it themselves (PYTHONDONTWRITEBYTECODE, a read-only kit).
COMPILE = $(PY) -m compileall -q grader tests/graded

$(VENV)/.ok: requirements/grading.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "bpe-kit needs Python 3.11 or newer (found " + sys.version.split()[0] + ")")'
	$(PYTHON) -m venv --clear $(VENV)
	$(PY) -m pip install --quiet --require-hashes -r requirements/grading.txt
	@$(COMPILE)
	@touch $@

# The kit itself (`pip install -e .`, which gives .venv/bin/bpe-kit) comes with the dev set: its
# build backend, setuptools, is locked there. The grading targets run `python -m grader` from here.
$(VENV)/.dev: requirements/dev.txt $(VENV)/.ok
	$(PY) -m pip install --quiet --require-hashes -r requirements/dev.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	@touch $@

venv: $(VENV)/.dev

# requirements/*.txt, from pyproject.toml: grading (the handout and Gradescope), dev (+ the dev
# group and the staff extra: make venv, CI), bench (+ the bench extra). Each is resolved within the one before it, so
# the packages they share have one version. Run after changing a pin in pyproject.toml; commit all three.
UV_LOCK = $(VENV)/bin/uv pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes \
	--custom-compile-command "make lock" --quiet
lock: $(VENV)/.dev
	$(UV_LOCK) -o requirements/grading.txt
	$(UV_LOCK) --group dev --extra staff -c requirements/grading.txt -o requirements/dev.txt
	$(UV_LOCK) --group dev --extra staff --extra bench -c requirements/dev.txt -o requirements/bench.txt

# The grader's messages in every language but English (grader/i18n.py): extract them from the code and
# the students' page templates, merge them into each catalogue (new ones untranslated, gone ones
# dropped), compile the .mo that grading reads. The .mo is committed: a grade needs no Babel.
# tests/kit/grader/test_messages_catalogue.py fails while a message is untranslated or the .mo is stale.
LOCALE := grader/locale
BABEL := $(VENV)/bin/pybabel
locale: $(VENV)/.dev
	$(BABEL) extract -F $(LOCALE)/babel.cfg --add-location=file --no-wrap --sort-by-file \
		--project=bpe-kit --version=0.1.0 -o $(LOCALE)/grader.pot .
	$(BABEL) update -i $(LOCALE)/grader.pot -d $(LOCALE) -D grader --no-wrap --no-fuzzy-matching \
		--ignore-obsolete
	$(BABEL) compile -d $(LOCALE) -D grader --statistics
	rm $(LOCALE)/grader.pot

grade: $(VENV)/.ok
	$(GRADER) grade $(SUBMISSION) --out $(OUT)$(if $(PART), --part '$(PART)')$(if $(TESTS), --tests '$(TESTS)')$(LANG_OPT)

submission: $(VENV)/.ok
	$(GRADER) zip $(SUBMISSION) --out $(ZIP)$(LANG_OPT)

grade-cs336: $(VENV)/.ok
	@test -n "$(REPO)" || { echo "usage: make grade-cs336 REPO=path/to/assignment1-basics [STUDENT_PYTHON=path] [IGNORE_REQUIRES_PYTHON=1]"; exit 2; }
	$(GRADER) grade --contract cs336 "$(REPO)" --out $(OUT) $(if $(STUDENT_PYTHON),--python "$(STUDENT_PYTHON)")$(if $(IGNORE_REQUIRES_PYTHON), --ignore-requires-python)$(LANG_OPT)

# On every core (pytest-xdist): a catalogue row's tests share one grading, so they go to one
# worker together (--dist loadgroup, tests/submissions/prefetch.py).
test: $(VENV)/.dev
	@$(COMPILE)
	$(PY) -m pytest -n auto --dist loadgroup

# Cosmic Ray's mutants of solution/bpe's graded modules, each graded by the grader in a scratch copy
# (tests/mutation/run.py): hours on two cores, so never part of `make test`. MODULES=training,tokenizer
# for some modules; SAMPLE=60 for that many mutants, the same ones on every run (a fixed seed);
# MATCH='is not' for the mutants whose printed name holds that text.
mutation: $(VENV)/.dev
	@$(COMPILE)
	$(PY) tests/mutation/run.py --jobs $(JOBS)$(if $(MODULES), --modules '$(MODULES)')$(if $(SAMPLE), --sample $(SAMPLE))$(if $(MATCH), --match '$(MATCH)')

fixtures: $(VENV)/.dev
	$(KIT) fixtures

kill-matrix: $(VENV)/.dev
	$(PY) tests/submissions/kill_matrix.py

stability: $(VENV)/.dev
	$(PY) tests/submissions/stability.py$(if $(ROWS), --rows $(ROWS))

corpus: $(VENV)/.ok
	$(PY) data/corpus.py

data: $(VENV)/.dev
	$(PY) data/corpus.py
	$(PY) data/fetch.py

lab: $(VENV)/.ok
	$(GRADER) lab $(NAME) --submission $(SUBMISSION)

bench: $(VENV)/.dev
	@# The optional extra `bench` (pyproject.toml), locked with the dev set in requirements/bench.txt.
	@# If it cannot install here, the bench still runs and skips the contenders it cannot import.
	@$(PY) -m pip install --quiet --require-hashes -r requirements/bench.txt || echo "bench: could not install requirements/bench.txt; contenders missing here will be skipped"
	@# torch, for the real-repository figure (bench/real_repo.py), apart from the lock: the lock is
	@# universal, and its hashes are of PyPI's CUDA builds, where pip takes the index's CPU build.
	@$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install --quiet "torch==2.13.0" || echo "bench: no torch; the real-repository figure is skipped"
	$(PY) bench/run.py $(BENCH_ARGS)

# The handout's language: `make handout LANG=zh` (or LANG=zh_CN.UTF-8, or HANDOUT_LANG=zh) builds
# the Chinese one. Only a LANG given on make's command line chooses it: the locale's LANG, from the
# environment, leaves the release what it is on every machine (English).
HANDOUT_LANG ?= $(if $(filter command line,$(origin LANG)),$(firstword $(subst _, ,$(subst ., ,$(LANG)))),en)

handout: $(VENV)/.dev
	$(PY) -m assignment.build --check
	$(KIT) release handout --lang $(HANDOUT_LANG)

class: $(VENV)/.dev
	$(KIT) farm grade $(SUBMISSIONS) --out $(OUT) --jobs $(JOBS)$(LANG_OPT)

gradescope: $(VENV)/.dev
	$(KIT) release gradescope$(LANG_OPT)

clean:
	rm -rf $(VENV) results submission.zip dist build .pytest_cache .hypothesis data/corpus
