"""The kit's tests rely on pytest-xdist's `--dist loadgroup` keeping an `xdist_group` on one worker:
a catalogue row's tests share one grading (tests/submissions/prefetch.py), and a hostile row's root
and user runs must never run at once (tests/kit/submissions/test_catalogue_hostile.py). pytest 9.2 with
pytest-xdist 3.8 silently stopped doing it (xdist sets a node id pytest no longer reads): every row
could be graded twice, and traces charged to the wrong run. This checks the locked pair does it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SUITE = textwrap.dedent(
    """
    import os, pytest
    ROWS = [pytest.param(n, marks=pytest.mark.xdist_group(f"row-{n}")) for n in "abcdef"]

    def _log(n):
        with open(os.environ["GROUPS_LOG"], "a") as f:
            f.write(f"{n} {os.environ['PYTEST_XDIST_WORKER']}\\n")

    @pytest.mark.parametrize("n", ROWS)
    def test_first(n):
        _log(n)

    @pytest.mark.parametrize("n", ROWS)
    def test_second(n):
        _log(n)
    """
)


def test_loadgroup_keeps_each_group_on_one_worker(tmp_path):
    (tmp_path / "test_rows.py").write_text(SUITE)
    log = tmp_path / "log"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "2",
            "--dist",
            "loadgroup",
            "-q",
            "-p",
            "no:cacheprovider",
            "test_rows.py",
        ],
        cwd=tmp_path,
        env={"GROUPS_LOG": str(log), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    workers: dict[str, set[str]] = {}
    for line in log.read_text().splitlines():
        row, worker = line.split()
        workers.setdefault(row, set()).add(worker)
    assert sorted(workers) == list("abcdef")
    split = {row: sorted(w) for row, w in workers.items() if len(w) > 1}
    assert not split, f"groups run on more than one worker: {split}"
    assert len(set().union(*workers.values())) == 2, "both workers should have had work"
