"""A class of 30+ submissions through the real grader: two shards, merged, reported.

Submissions come from the catalogue (tests/submissions) where it has them, plus copies of the
reference and the starter in every layout students upload (folder, zip, nested zip, loose files),
simple mutants, and unusable uploads. Hostile code only ever runs inside run_sandboxed.
"""

from __future__ import annotations

import csv
import shutil
import zipfile
from pathlib import Path

import pytest
from report_dom import CHROMIUM, Dom, dump_dom
from sandboxed import PYTHON, run_sandboxed

from grader import rubric
from grader.farm import merge as farm_merge
from grader.farm import records
from grader.paths import KIT_ROOT as KIT

CATALOGUE = KIT / "tests/submissions"

# A fast slice of the real graded suite (the grader's own test selection): Part 1, Part 2, and a
# hidden Part 3 test. The speed gates are left out for time; their feedback is parsed in test_report_html.
SUBSET = "test_merge or test_train_tiny_words or test_hidden_encode"


def catalogue_entries():
    """The catalogue's rows, when the catalogue is there to build them."""
    try:
        import catalogue  # tests/submissions/ is on the path (pyproject's pytest pythonpath)

        return catalogue, catalogue.load()
    except Exception:
        return None, []


def _zip(folder: Path, dest: Path, prefix: str) -> None:
    with zipfile.ZipFile(dest, "w") as z:
        for p in sorted(folder.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                z.write(p, prefix + p.relative_to(folder).as_posix())


def _mutant(dest: Path, module: str, old: str, new: str) -> None:
    shutil.copytree(KIT / "solution", dest, ignore=shutil.ignore_patterns("__pycache__"))
    f = dest / "bpe" / module
    text = f.read_text()
    assert old in text, f"mutation point {old!r} not in {module}"
    f.write_text(text.replace(old, new, 1))


def build_class(subs: Path) -> dict[str, str]:
    """The class, and what each student should end up as ('full', 'zero', 'partial', 'unreadable', 'any')."""
    expect = {}
    sol, start = KIT / "solution/bpe", KIT / "starter/bpe"
    for i in range(4):
        shutil.copytree(sol, subs / f"ref{i}/bpe", ignore=shutil.ignore_patterns("__pycache__"))
        expect[f"ref{i}"] = "full"
    for i, prefix in enumerate(["bpe/", "my-work/bpe/", "a/b/starter/bpe/", ""]):
        _zip(sol, subs / f"refzip{i}.zip", prefix)
        expect[f"refzip{i}"] = "full"
    for i in range(5):
        shutil.copytree(start, subs / f"starter{i}/bpe", ignore=shutil.ignore_patterns("__pycache__"))
        expect[f"starter{i}"] = "zero"
    _zip(start, subs / "starterzip.zip", "bpe/")
    expect["starterzip"] = "zero"
    # simple variants of the reference: merge broken in a way the first test sees
    for i in range(3):
        shutil.copytree(sol, subs / f"mut{i}/bpe", ignore=shutil.ignore_patterns("__pycache__"))
        (subs / f"mut{i}/bpe/__init__.py").write_text(
            (sol / "__init__.py").read_text()
            + f"\n\ndef merge(ids, pair, new_id):\n    return list(ids)[{i}:]\n"
        )
        expect[f"mut{i}"] = "partial"
    module, entries = catalogue_entries()
    taken = {"mutant": 0, "variant": 0, "slow": 0, "hostile": 0}
    cap = {"mutant": 4, "variant": 2, "slow": 1, "hostile": 4}
    for e in entries:
        if taken.get(e.kind, 99) >= cap.get(e.kind, 0):
            continue
        try:
            module.materialize(e, subs / f"{e.kind}-{e.name}")
        except Exception:
            shutil.rmtree(subs / f"{e.kind}-{e.name}", ignore_errors=True)
            continue
        taken[e.kind] += 1
        expect[f"{e.kind}-{e.name}"] = "hostile" if e.kind == "hostile" else "any"
    for d in sorted((CATALOGUE / "variants").glob("*")):
        if (d / "bpe/__init__.py").is_file() and f"variant-{d.name}" not in expect:
            shutil.copytree(d, subs / f"variant-{d.name}", ignore=shutil.ignore_patterns("__pycache__"))
            expect[f"variant-{d.name}"] = "full"
    (subs / "badzip.zip").write_bytes(b"PK\x03\x04 truncated upload")
    (subs / "empty").mkdir()
    (subs / "readme-only").mkdir()
    (subs / "readme-only/README.txt").write_text("I forgot the code")
    expect.update(badzip="unreadable", empty="unreadable", **{"readme-only": "unreadable"})
    pad = 0
    while len(expect) < 32:  # keep the class at 30+ whatever the catalogue holds today
        shutil.copytree(start, subs / f"extra{pad}/bpe", ignore=shutil.ignore_patterns("__pycache__"))
        expect[f"extra{pad}"] = "zero"
        pad += 1
    return expect


def farm(*args, timeout=600):
    proc = run_sandboxed([PYTHON, "-m", "grader.farm", *map(str, args)], timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


@pytest.mark.slow
@pytest.mark.hostile
def test_a_class_graded_in_two_shards_merges_into_one_complete_report(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    expect = build_class(subs)
    for k in (1, 2):
        proc = farm(
            "grade",
            subs,
            "--out",
            tmp_path / f"shard{k}",
            "--shard",
            f"{k}/2",
            "--jobs",
            "2",
            "--budget",
            "120",
            "--tests",
            SUBSET,
        )
        assert "done in" in proc.stderr
    rep, _, recs = farm_merge.merge([tmp_path / "shard1", tmp_path / "shard2"], tmp_path / "class")
    assert rep.complete and not rep.duplicates and rep.students == len(expect) >= 30
    assert recs == records.read_records(tmp_path / "class")
    for student, want in expect.items():
        rec = recs[student]
        got = (rec["status"], rec["score"])
        if want == "full":  # every test of the quick pass passed (the record's max is the rubric's)
            assert rec["status"] == "graded" and rec["tests"], (student, rec["message"])
            assert all(t["score"] == t["max_score"] > 0 for t in rec["tests"]), (student, rec["message"])
        elif want == "zero":
            assert got == ("graded", 0.0), (student, rec["message"])
        elif want == "partial":
            assert rec["status"] == "graded" and 0 <= rec["score"] < 100, student
        elif want == "unreadable":
            assert rec["status"] == "unreadable_submission" and rec["message"], student
        elif want == "hostile":
            assert rec["status"] in ("graded", "grader_error") and (rec["score"] or 0) < 100, student
    farm("report", tmp_path / "class")
    # the quick pass left the other rubric tests ungraded: the gradebook says so, with every column
    with (tmp_path / "class/gradebook.csv").open(newline="") as f:
        book = list(csv.DictReader(f))
    assert len(book[0]) == 8 + len(rubric.load(KIT / "grader/rubric.toml"))
    assert all(
        row["reason"].startswith("INCOMPLETE: not graded yet: ") for row in book if row["status"] == "graded"
    )
    (tmp_path / "class/report.html").read_text()
    if CHROMIUM is None:
        pytest.skip("no Chromium to render report.html (graded, merged and written all passed)")
    dom = Dom(dump_dom(tmp_path / "class/report.html"))
    links = [a["href"] for a in dom.find("a") if a.get("data-why") == "not-graded"]
    not_graded = sorted(s for s, r in recs.items() if r["status"] != "graded")
    assert links == [f"report/students-1.html#student-{s}" for s in not_graded]  # 30+ students: one page
    page = Dom(dump_dom(tmp_path / "class/report/students-1.html"))
    assert {a["id"] for a in page.find("section")} == {f"student-{s}" for s in expect}
    counts = [int(a["data-count"]) for t, a in dom.elements if t == "rect"][:10]
    assert sum(counts) == sum(r["status"] == "graded" for r in recs.values())
    assert "No speed gate recorded a ratio." in " ".join(dom.text)  # no gate was selected: the page says so
