"""Hidden encoding test: golden ids for a tokenizer and texts students do not see.

PYTEST_DONT_REWRITE: every check carries its own message, written for students.
"""

from __future__ import annotations

import pytest

from grader.checks.encoding_check import check_encode_case


@pytest.mark.timeout(60)
def test_hidden_encode(bpe):
    check_encode_case(bpe, "hidden", "hidden_mixed")
