"""The class farm as an ordinary user (a Slurm task, a rootless pod, a TA's laptop), over a class of
the catalogue's hostile rows and one correct row (a Pool under 'spawn'): every student gets the
score the catalogue says it honestly earns, in user namespaces ("userns"), with nothing of the kit
in what the student is shown, and nothing left behind.

The farm runs in the catalogue's jail (tests/submissions/jail.py: a PID namespace under caps, the
kit read-only) with a /tmp of its own, so anything a run leaves in /tmp (a forged results.json, the
farm's or the sandbox's folders) is seen, whatever else runs on the machine. Each row is graded on
its catalogue `select`, as `bpe-kit grade` grades it in test_catalogue_hostile.py: the farm grades
the rows that share a `select` in one run (`--only ... --tests ...`), all into one output. A row
graded on the whole suite (the spawn pool, the endless loop) is graded here on WHOLE_SUITE's few
tests: `bpe-kit grade` grades its whole suite as the same user in test_catalogue_hostile.py, and
what the farm adds (its processes, its budget, its records) meets a pool that trains and a loop
that never returns in these as in every test.
"""

from __future__ import annotations

import json

import catalogue
import jail
import pytest
from hostile_checks import AS_USER, Listener, check_tests, kit_shown, tainted_kit_files
from sandboxed import PYTHON, ordinary_user

from grader.farm import gradebook, records
from grader.sandbox.isolation import Isolation

pytestmark = [pytest.mark.slow, pytest.mark.hostile, pytest.mark.xdist_group("farm-as-user")]

CLASS = [e for e in AS_USER if not e.gap]  # a row with a known gap does not get its honest score
BUDGET = 1200  # seconds per student: far beyond any row's time, so none is graded as timed out
WHOLE_SUITE = "test_merge or test_train_tiny_words or test_encode_basic or test_decode"


def _runs(submissions, out) -> list[list[str]]:
    """One farm run per `select` of the class, each grading the rows that share it."""
    by_select: dict[str, list[str]] = {}
    for entry in CLASS:
        by_select.setdefault(entry.select or WHOLE_SUITE, []).append(entry.name)
    farm = [PYTHON, "-m", "grader.farm", "grade", str(submissions), "--out", str(out), "--jobs", "2"]
    return [
        [*farm, "--budget", str(BUDGET), "--only", *names, "--tests", select]
        for select, names in by_select.items()
    ]


@pytest.fixture(scope="module")
def farmed(tmp_path_factory):
    if not (catalogue.grade_all() or all(e.smoke for e in CLASS)):
        pytest.skip("BPE_KIT_CATALOGUE=smoke: a quick run leaves the class farm out")
    user = ordinary_user()
    work = tmp_path_factory.mktemp("farm-user")
    submissions, out = work / "class", work / "out"
    listener = Listener()
    try:
        for entry in CLASS:
            catalogue.materialize(entry, submissions / entry.name, fill={"LISTEN_PORT": str(listener.port)})
        jail.make_owned(out, user)
        done = jail.run_in_jail(
            _runs(submissions, out),
            work / "jail",
            reach=[str(submissions), str(out)],
            linger=max(e.linger for e in CLASS),
            timeout=BUDGET + 300,
            user=user,
            private_tmp=True,
        )
    finally:
        connections = listener.close()
    return {"done": done, "out": out, "connections": connections}


def test_the_farm_runs_to_the_end_and_leaves_nothing_behind(farmed):
    done: jail.Jailed = farmed["done"]
    assert done.returncode == 0, f"the farm exited {done.returncode}:\n{done.stderr[-3000:]}"
    assert not done.leftovers, f"processes outlived the farm: {done.leftovers}"
    assert done.left_in_tmp == [], f"the farm's run left these in /tmp: {done.left_in_tmp}"
    assert farmed["connections"] == 0, "a student reached the test's listener on 127.0.0.1"
    tainted = tainted_kit_files()
    assert not tainted, f"the kit was written to: {tainted}"


@pytest.mark.parametrize("row", [e.name for e in CLASS])
def test_each_student_gets_the_rows_honest_score_in_user_namespaces(farmed, row):
    entry = catalogue.by_name(row)
    out = farmed["out"]
    book = {s["student"]: s for s in gradebook.load(out)["students"]}
    assert row in book, f"{row} is not in the gradebook: {farmed['done'].stderr[-3000:]}"
    student = book[row]
    assert student["status"] == records.GRADED, f"{row}: {student['status']}: {student['reason']}"
    assert student["isolation"] == Isolation.USERNS
    rec = records.read_record(records.record_path(out, row))
    results = json.loads((records.student_dir(out, row) / "results.json").read_text(encoding="utf-8"))
    assert student["total"] == results["score"] == check_tests(entry, results["tests"])
    assert results["extra_data"]["isolation"] == Isolation.USERNS
    shown = kit_shown([results, rec["tests"], rec["message"]])
    assert not shown, f"{row}: what the student is shown holds {shown}, of the kit"
