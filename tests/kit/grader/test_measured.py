"""One measurement of the machine per run (grader/measured.py), shared by the run's gradings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grader import budgets, calibration, measured
from grader.farm import batch
from grader.paths import KIT_ROOT
from grader.request import GradeRequest

# A grading process asks for a figure whose measuring is logged to a file, so the test counts how
# many measured; it sleeps while measuring, so concurrent askers really meet the lock.
ASKER = textwrap.dedent(
    """
    import sys, time
    from grader import measured
    def measure():
        with open(sys.argv[1], "a") as log:
            log.write("measured\\n")
        time.sleep(0.3)
        return {"train": 0.25}
    print(measured.shared("reference", measure)["train"])
    """
)


def test_without_a_run_file_every_grading_measures_for_itself(monkeypatch):
    monkeypatch.delenv(measured.ENV, raising=False)
    calls = []
    for _ in range(2):
        measured.shared("yardstick", lambda: calls.append(1) or 0.2)
    assert calls == [1, 1]


def test_concurrent_gradings_of_one_run_measure_once_and_read_the_same_figure(tmp_path):
    log = tmp_path / "log"
    env = dict(os.environ, PYTHONPATH=str(KIT_ROOT))
    env[measured.ENV] = str(tmp_path / "run" / "machine.json")
    procs = [
        subprocess.Popen([sys.executable, "-c", ASKER, str(log)], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert outs == ["0.25"] * 3
    assert log.read_text() == "measured\n"
    assert json.loads((tmp_path / "run" / "machine.json").read_text()) == {"reference": {"train": 0.25}}


def test_a_generated_text_is_made_once_per_run(tmp_path, monkeypatch):
    monkeypatch.setenv(measured.ENV, str(tmp_path / "machine.json"))
    made = []
    first = measured.shared_text("mixed-10-1", lambda: made.append(1) or "a\r\nb")
    again = measured.shared_text("mixed-10-1", lambda: made.append(1) or "other")
    assert first == again == "a\r\nb" and made == [1]  # newlines kept as made


def test_an_unusable_run_file_falls_back_to_measuring(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(measured.ENV, str(blocker / "machine.json"))  # its folder is a file
    assert measured.shared("yardstick", lambda: 0.5) == 0.5


@pytest.fixture
def reference_runs(tmp_path, monkeypatch) -> list:
    """A run file in tmp_path and a fake reference (train 0.2 s, encode 0.1 s): each measurement
    appends 1 to the list returned."""
    monkeypatch.setenv(measured.ENV, str(tmp_path / "machine.json"))
    runs = []
    monkeypatch.setattr(
        calibration, "measure_reference", lambda corpus, text: runs.append(1) or {"train": 0.2, "encode": 0.1}
    )
    monkeypatch.setattr(calibration, "write_training_corpus", lambda scratch: scratch / "corpus.txt")
    monkeypatch.setattr(calibration, "generated", lambda spec: "text")
    return runs


def test_the_speed_budgets_of_one_run_are_the_same_for_every_grading(tmp_path, reference_runs):
    runs = reference_runs
    seen = []
    for _ in range(2):  # two gradings: each process starts with an empty in-process cache
        with calibration.reset():
            seen.append(calibration.budgets(tmp_path)["train"])
    assert runs == [1] and seen[0] == seen[1]
    assert seen[0].seconds == pytest.approx(budgets.FACTORS["train"] * 0.2)
    assert "measured on this machine in this run" in seen[0].basis


def test_a_farm_run_shares_one_measurement_and_leaves_no_trace(monkeypatch):
    monkeypatch.delenv(measured.ENV, raising=False)
    with batch.measured_once():
        inside = measured.run_file()
        assert inside is not None and inside.parent.is_dir()
    assert measured.run_file() is None and not inside.parent.exists()
    monkeypatch.setenv(measured.ENV, "/elsewhere/machine.json")
    with batch.measured_once():  # a caller's own run file is kept
        assert measured.run_file() == Path("/elsewhere/machine.json")


def test_a_figure_measured_with_another_inside_it_does_not_wait_for_itself(tmp_path, monkeypatch):
    monkeypatch.setenv(measured.ENV, str(tmp_path / "machine.json"))
    outer = measured.shared("reference", lambda: {"text": measured.shared_text("t", lambda: "ab"), "y": 1})
    assert outer == {"text": "ab", "y": 1}
    assert measured.shared("yardstick", lambda: 0.3) == 0.3
    assert set(json.loads((tmp_path / "machine.json").read_text())) == {"reference", "yardstick"}


def test_the_gradings_of_a_run_share_hypothesis_unicode_tables(tmp_path):
    """A character strategy's tables are computed by the run's first grading, beside the run file,
    and read by the others: none is left in a grade's own folder, where the next grade cannot see it."""
    from grader.suite import runner

    run_file = tmp_path / "run" / "machine.json"
    cmd = runner.suite_command(
        KIT_ROOT / "solution", tmp_path, GradeRequest(tests="test_round_trip_property")
    )
    env = dict(cmd.env, **{measured.ENV: str(run_file)})
    done = subprocess.run(cmd.argv, env=env, cwd=cmd.cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    tables = list((run_file.parent / "hypothesis" / "unicode_data").glob("*/charmap.json.gz"))
    assert len(tables) == 1, sorted(p.name for p in run_file.parent.rglob("*"))
    assert not (tmp_path / ".hypothesis").exists()


def test_a_run_measures_before_its_gradings_start(tmp_path, monkeypatch, reference_runs):
    """The farm and the kit's tests take the run's figures first (calibration.measure_first), so
    no grading of the run measures beside the others: every grading reads them from the file."""
    runs = reference_runs
    monkeypatch.setattr(calibration, "yardstick_seconds", lambda repeat=3: runs.append("yard") or 0.3)
    with calibration.reset():
        calibration.measure_first(tmp_path)
        assert runs == ["yard", 1]
        figures = json.loads((tmp_path / "machine.json").read_text())
        assert "yardstick 2" in figures and any(key.startswith("reference ") for key in figures)
        assert calibration.budgets(tmp_path)["encode"].seconds == pytest.approx(
            budgets.FACTORS["encode"] * 0.1
        )
        assert runs == ["yard", 1]  # read from the run's file, not measured again


def test_without_a_run_file_nothing_is_measured_ahead(tmp_path, monkeypatch):
    monkeypatch.delenv(measured.ENV, raising=False)
    monkeypatch.setattr(calibration, "measure_reference", lambda corpus, text: pytest.fail("measured"))
    calibration.measure_first(tmp_path)  # a single grade measures when its gates ask, as before
