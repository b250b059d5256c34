"""The three faces of a grade: Gradescope's results.json, junit.xml, and the terminal table.

results.json is deterministic for a given submission apart from timings: `execution_time`, and the
measured seconds and megabytes that the efficiency tests report next to their verdict (tests come
in rubric order, with no durations and no temp paths). Scores and statuses never vary.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from .scoring import NOT_IN_CONTRACT, Scored

OUTPUT_NOTE = "Output of your code during this test:\n"


def _points(x: float) -> float | int:
    return int(x) if float(x).is_integer() else round(float(x), 4)


def test_output(s: Scored) -> str:
    parts = [s.feedback] if s.feedback else []
    if s.output:
        parts.append(OUTPUT_NOTE + s.output)
    return "\n\n".join(parts)


def results_json(scored: list[Scored], *, execution_time: float, isolation: str) -> dict:
    total = sum(s.score for s in scored)
    maximum = sum(s.entry.points for s in scored)
    tests = [
        {
            "name": s.entry.name,
            "number": s.entry.number,
            "score": _points(s.score),
            "max_score": _points(s.entry.points),
            "status": "passed" if s.status == "passed" else "failed",
            "visibility": s.entry.visibility,
            "output": test_output(s),
        }
        for s in scored
    ]
    for t, s in zip(tests, scored):
        if s.status == NOT_IN_CONTRACT:  # neither passed nor failed (Gradescope shows 0/0)
            del t["status"]
    not_impl = sum(s.status == "not implemented" for s in scored)
    summary = f"Score: {_points(total)} / {_points(maximum)}."
    if not_impl:
        summary += f" {not_impl} test(s) reach code that is not implemented yet."
    return {
        "score": _points(total),
        "execution_time": round(execution_time, 2),
        "output": summary,
        "tests": tests,
        "extra_data": {"isolation": isolation, "max_score": _points(maximum)},
    }


def error_results(message: str) -> dict:
    """A results.json for a submission that could not be graded at all (shown to the student)."""
    return {
        "score": 0,
        "execution_time": 0,
        "tests": [],
        "output": f"The autograder could not grade this submission: {message}",
        "extra_data": {"error": message},
    }


def write_results(results: dict, out_dir: Path) -> Path:
    """Written to a temporary name, then renamed: results.json is either whole or absent."""
    path = Path(out_dir) / "results.json"
    tmp = path.with_name(".results.json.tmp")
    tmp.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def write_junit(scored: list[Scored], out_dir: Path, *, execution_time: float) -> Path:
    failures = sum(s.status not in ("passed", NOT_IN_CONTRACT) for s in scored)
    suite = ET.Element(
        "testsuite",
        name="bpe-kit",
        tests=str(len(scored)),
        failures=str(failures),
        errors="0",
        time=f"{execution_time:.3f}",
    )
    for s in scored:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"part {s.entry.part}",
            name=f"{s.entry.number} {s.entry.name}",
            time=f"{s.duration:.3f}",
        )
        ET.SubElement(case, "properties").extend(
            [
                ET.Element("property", name="points", value=str(_points(s.entry.points))),
                ET.Element("property", name="score", value=str(_points(s.score))),
                ET.Element("property", name="visibility", value=s.entry.visibility),
            ]
        )
        if s.status == NOT_IN_CONTRACT:
            ET.SubElement(case, "skipped", message=s.feedback[:200])
        elif s.status != "passed":
            first = (s.feedback.splitlines() or [s.status])[0][:200]
            node = ET.SubElement(case, "failure", message=f"{s.status}: {first}", type=s.status)
            node.text = s.feedback
        if s.output:
            ET.SubElement(case, "system-out").text = s.output
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    path = Path(out_dir) / "junit.xml"
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
    return path


def terminal(scored: list[Scored], *, note: str = "") -> str:
    """The table a student reads first, then every failure's feedback, then the total."""
    width = max([len(s.entry.name) for s in scored] + [4])
    width = min(width, 76)
    sw = max([len(s.status) for s in scored] + [16])
    lines = [f"{'#':<6} {'test':<{width}} {'points':>9}  {'status':<{sw}} {'time':>7}"]
    lines.append("-" * len(lines[0]))
    for s in scored:
        pts = f"{_points(s.score)}/{_points(s.entry.points)}"
        lines.append(
            f"{s.entry.number:<6} {s.entry.name[:width]:<{width}} {pts:>9}  "
            f"{s.status:<{sw}} {s.duration:>6.2f}s"
        )
    for s in scored:
        if s.status not in ("passed", NOT_IN_CONTRACT):
            lines += ["", f"--- {s.entry.number} {s.entry.name}: {s.status}", test_output(s).rstrip()]
    total = sum(s.score for s in scored)
    maximum = sum(s.entry.points for s in scored)
    lines += ["", f"Total: {_points(total)} / {_points(maximum)}"]
    if note:
        lines.append(note)
    return "\n".join(lines)
