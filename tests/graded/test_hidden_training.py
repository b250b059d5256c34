"""Hidden training tests: the same checks as Part 2, on corpora students do not see.

PYTEST_DONT_REWRITE: every check carries its own message, written for students.
"""

from __future__ import annotations

import pytest

from grader.checks.training_check import check_training_case


@pytest.mark.timeout(120)
def test_hidden_train_generated(bpe):
    check_training_case(bpe, "hidden", "hidden_mixed")


@pytest.mark.timeout(60)
def test_hidden_train_tricky(bpe):
    check_training_case(bpe, "hidden", "hidden_tricky")
