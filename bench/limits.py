"""How close correct code comes to the per-test CPU limits, and what an endless loop costs.

The limits (grader/budgets.py: TEST_FACTOR x the reference's time per test, CALL_FACTOR x its
slowest call's per call, plus an allowance per call) must be far above what a correct but slow submission uses, and low enough that a
submission whose every call loops for ever grades in a few times a reference grade. Both are
measured here on the catalogue's rows:

- each slow-but-correct row (SLOW_ROWS) is graded with the limits off, recording every test's CPU
  time and its slowest call's; the report gives the largest share of a limit any of them used
  (under 1 means it would pass; the margin is how far under);
- the row whose every call loops for ever (LOOPING_ROW) is graded jailed, as the kit's tests do
  (it is hostile: a PID namespace under caps), and its wall time is set against a reference grade.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import measure

ROOT = measure.ROOT
SLOW_ROWS = ("slow_naive_trainer", "slow_replay_encoder", "pool_fork", "pool_spawn", "pool_forkserver")
LOOPING_ROW = "loop_forever"


def _catalogue():
    """The catalogue's helpers (they live beside the rows, in tests/submissions)."""
    sys.path.insert(0, str(ROOT / "tests" / "submissions"))
    try:
        import catalogue
        import jail
    finally:
        sys.path.remove(str(ROOT / "tests" / "submissions"))
    return catalogue, jail


def recorded_times(submission_parent: Path, workdir: Path, timeout_s: float) -> dict:
    """{"tests": {key: CPU s}, "calls": {key: slowest call's CPU s}, "counts": {key: [calls,
    processes]}} of one grade, limits off."""
    from grader.suite import runner

    cmd = runner.suite_command(Path(submission_parent).resolve(), workdir)
    times = workdir / "times.json"
    argv = [*cmd.argv, "--grader-test-times", str(times), "--grader-no-test-limits"]
    subprocess.run(argv, env=cmd.env, cwd=workdir, capture_output=True, check=False, timeout=timeout_s)
    return json.loads(times.read_text(encoding="utf-8"))


def shares(times: dict, limits) -> dict:
    """The largest share of a limit one grade used: per test (with the allowances of all its calls
    and processes) and per call (with one call's allowance, and none for processes: an upper bound)."""
    per_call, per_child = limits.allowances()
    worst = {"test": (0.0, "", 0.0, 0.0), "call": (0.0, "", 0.0, 0.0)}
    for kind, table, limit_of in (
        ("test", times["tests"], limits.seconds),
        ("call", times["calls"], limits.call_seconds),
    ):
        for key, used in table.items():
            limit = limit_of(key)
            if limit is None:
                continue
            calls, children = times.get("counts", {}).get(key, [1, 0]) if kind == "test" else [1, 0]
            limit += per_call * max(1, calls) + per_child * children
            if used / limit > worst[kind][0]:
                worst[kind] = (used / limit, key, used, limit)
    return {
        kind: {"share": round(s, 3), "test": key, "used_s": round(used, 2), "limit_s": round(limit, 2)}
        for kind, (s, key, used, limit) in worst.items()
    }


def run_limits(*, timeout_s: float) -> dict:
    from grader.budgets import CALL_ALLOWANCE_S, CALL_FACTOR, CHILD_ALLOWANCE_S, TEST_FACTOR
    from grader.calibration import per_test_limits

    limits = per_test_limits()
    if limits is None or not limits.calls:
        return {"note": "no per-test times recorded: run `bpe-kit fixtures --calibrate`"}
    catalogue, jail = _catalogue()
    section: dict = {
        "factor": TEST_FACTOR,
        "call_factor": CALL_FACTOR,
        "allowance_s": CALL_ALLOWANCE_S,
        "child_allowance_s": CHILD_ALLOWANCE_S,
        "rows": [],
    }
    with tempfile.TemporaryDirectory(prefix="bench-limits-") as tmp:
        for name in SLOW_ROWS:
            work = Path(tmp) / name
            sub = catalogue.materialize(catalogue.by_name(name), work / "submission")
            try:
                times = recorded_times(sub, work, timeout_s)
            except (OSError, ValueError, subprocess.TimeoutExpired) as e:
                section["rows"].append({"row": name, "note": f"not measured: {e}"})
                continue
            section["rows"].append({"row": name, **shares(times, limits)})
        # Both jailed, so that the jail's own cost is on both sides of the ratio.
        ref = jail.grade_in_jail(ROOT / "solution", Path(tmp) / "reference" / "out", timeout=timeout_s)
        entry = catalogue.by_name(LOOPING_ROW)
        sub = catalogue.materialize(entry, Path(tmp) / LOOPING_ROW / "submission")
        done = jail.grade_in_jail(sub, Path(tmp) / LOOPING_ROW / "out", timeout=timeout_s)
    if ref.results is not None and done.results is not None:
        section["looping"] = {
            "row": LOOPING_ROW,
            "seconds": round(done.seconds, 1),
            "score": done.results.get("score"),
            "reference_seconds": round(ref.seconds, 1),
            "ratio": round(done.seconds / ref.seconds, 2),
        }
    else:
        failed = ref if ref.results is None else done
        section["looping"] = {"note": f"not measured: {failed.stderr[-300:] or 'no results.json'}"}
    return section


def limits_md(section: dict) -> list[str]:
    out = ["### Per-test limits", ""]
    if section.get("note"):
        return out + [f"Not measured: {section['note']}."]
    out += [
        f"Each test: {section['factor']:g} x the reference's CPU time for it, each call "
        f"{section['call_factor']:g} x its slowest call's, plus {section['allowance_s']:g} s per call and "
        f"{section['child_allowance_s']:g} s per process it runs. The largest share of a limit that a "
        "correct but slow row used (under 1 passes; with the limits off, processes are seen only "
        "every 0.5 s, and a call's share counts none, so each share is an upper bound):",
        "",
        "| row | per test | per call |",
        "|---|---|---|",
    ]
    for row in section["rows"]:
        if "note" in row:
            out.append(f"| {row['row']} | {row['note']} | |")
            continue
        cells = [
            f"{row[k]['share']:.2f} ({row[k]['test']}: {row[k]['used_s']:.2f} of {row[k]['limit_s']:.2f} s)"
            for k in ("test", "call")
        ]
        out.append(f"| {row['row']} | {cells[0]} | {cells[1]} |")
    looping = section.get("looping", {})
    out.append("")
    if "ratio" in looping:
        out.append(
            f"A submission whose every call loops for ever (`{looping['row']}`): graded in "
            f"{looping['seconds']:.1f} s, score {looping['score']}, {looping['ratio']:.1f}x a full grade of "
            f"the reference ({looping['reference_seconds']:.1f} s), both jailed."
        )
    else:
        out.append(f"Endless loops: {looping.get('note', 'not measured')}.")
    return out
