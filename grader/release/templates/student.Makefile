# Your BPE assignment. Every target sets up its own .venv first; nothing is installed elsewhere.
# To use a Python you already have (with the packages of requirements/grading.txt), give it as PY:
#     make grade PY=/path/to/python
PYTHON ?= python3
VENV ?= .venv
PY ?= $(VENV)/bin/python
SUBMISSION ?= starter
OUT ?= results
ZIP ?= submission.zip
NAME ?= trace
# `make grade LANG=zh`: the report and the feedback in Chinese. A LANG given on the command line is
# passed as --lang (an LC_ALL in the environment cannot outvote it); otherwise the environment decides.
LANG_OPT = $(if $(filter command line,$(origin LANG)), --lang '$(LANG)')

# A PY given on the command line or in the environment is used as it is: no .venv is made.
ifeq ($(origin PY),file)
SETUP := $(VENV)/.ok
else
SETUP :=
endif

.PHONY: help venv grade lab corpus submission clean

help:
	@echo "make grade [SUBMISSION=starter] [OUT=results]   grade your bpe (a folder holding bpe/, or a zip)"
	@echo "make grade PART=2 | TESTS=expr                 a quick, partial grade: one part (1, 2, 3, E), or some tests"
	@echo "make grade LANG=zh                             the report and the feedback in Chinese (中文报告与反馈)"
	@echo "make lab NAME=trace                             run an experiment on your bpe (see assignment/README.md)"
	@echo "make corpus                                     generate the practice corpus in data/corpus/"
	@echo "make submission                                 build submission.zip to upload"
	@echo "make clean                                      remove .venv, results and generated files"

# The packages Gradescope grades with, each file checked against its hash (requirements/grading.txt).
$(VENV)/.ok: requirements/grading.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "this assignment needs Python 3.11 or newer (found " + sys.version.split()[0] + ")")'
	$(PYTHON) -m venv --clear $(VENV)
	$(VENV)/bin/python -m pip install --quiet --require-hashes -r requirements/grading.txt
	@touch $@

venv: $(VENV)/.ok

grade: $(SETUP)
	$(PY) -m grader grade $(SUBMISSION) --out $(OUT)$(if $(PART), --part '$(PART)')$(if $(TESTS), --tests '$(TESTS)')$(LANG_OPT)

lab: $(SETUP)
	$(PY) -m assignment.labs $(NAME) --submission $(SUBMISSION)

corpus: $(SETUP)
	$(PY) data/corpus.py

submission: $(SETUP)
	$(PY) -m grader zip $(SUBMISSION) --out $(ZIP)$(LANG_OPT)

clean:
	rm -rf $(VENV) $(OUT) data/corpus submission.zip .pytest_cache .hypothesis
