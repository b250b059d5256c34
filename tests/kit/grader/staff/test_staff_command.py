"""`bpe-kit staff` is the staff's own command; `python -m grader.farm collect ...` is its old
spelling, kept for one release, and must mean exactly the same."""

from __future__ import annotations

import subprocess
import sys

import pytest

from grader import cli
from grader.farm_cli import build_parser as farm_parser
from grader.staff.__main__ import build_parser as staff_parser
from grader.staff.cli import COMMANDS

ARGS = {
    "collect": ["dl", "--roster", "r.csv", "--into", "subs"],
    "finalize": ["out", "--roster", "r.csv"],
    "release": ["out", "--roster", "r.csv", "--to", "pages", "--lang", "zh"],
    "similarity": ["subs", "--starter", "starter", "--out", "sim"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_the_old_spelling_means_the_same(command):
    assert vars(staff_parser().parse_args([command, *ARGS[command]])) == vars(
        farm_parser().parse_args([command, *ARGS[command]])
    )


def test_bpe_kit_staff_lists_the_staff_commands_and_not_the_farms(capsys):
    assert "staff" in cli.TOOLS
    with pytest.raises(SystemExit) as stop:
        cli.main(["staff", "--help"])
    assert stop.value.code == 0
    said = capsys.readouterr().out
    assert all(c in said for c in COMMANDS) and "merge" not in said


def test_python_m_grader_staff_runs_and_refuses_a_missing_roster(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader.staff",
            "finalize",
            str(tmp_path),
            "--roster",
            str(tmp_path / "no.csv"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and result.stderr.startswith("error: ") and "Traceback" not in result.stderr
