"""Two gradings side by side (a farm at --jobs 2, or two of the kit's own test workers) keep each
their verdicts: rows whose trainer runs 32 processes under a Manager, or 32 processes of 16
threads each, pass every test even while the other one runs, since each grading has a process
budget of its own (grader/sandbox/box.py). The full check, every row alone, beside a busy
neighbour and as an ordinary user, is `make stability` (tests/submissions/stability.py).
"""

from __future__ import annotations

import catalogue
import pytest
import stability

pytestmark = pytest.mark.slow

PAIR = ["procs_manager", "procs_threads"]
# The tests that train (each call runs the row's processes), few enough for ~30 s on 2 cores.
TRAINING = "test_train_tiny_words or test_train_with_special_token or test_train_overlapping_specials"


def test_pool_rows_graded_side_by_side_keep_their_verdicts(tmp_path):
    graded = stability.side_by_side(PAIR, tmp_path, TRAINING)
    for name, results in graded.items():
        entry = catalogue.by_name(name)
        got, want = stability.verdicts(results), stability.expected(entry, results)
        assert len(got) == 3, f"{name}: graded {sorted(got)}"
        changed = {n: results["tests"][i]["output"][:600] for i, n in enumerate(got) if got[n] != want[n]}
        assert not changed, f"{name} beside {[n for n in PAIR if n != name]}: {changed}"
