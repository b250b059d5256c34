"""The grade's fixed words as enums (grader/terms.py): what they write is the plain string, so
results.json, junit.xml and the farm's records stay byte for byte what they were."""

from __future__ import annotations

import json

from grader import gradescope, report
from grader.rubric import Entry
from grader.scoring import Scored
from grader.terms import VISIBILITIES, Status, Visibility


def _scored(status: str, visibility: str = Visibility.VISIBLE) -> Scored:
    entry = Entry("test_x.py::test_a", "1.1", "test a", 1, 2, visibility)
    return Scored(entry, status, 0, "wrong ids", "", 0.1)


def test_a_member_is_written_as_its_string():
    members = {"status": Status.NOT_IMPLEMENTED, "visibility": Visibility.AFTER_DUE_DATE}
    plain = {"status": "not implemented", "visibility": "after_due_date"}
    for indent in (None, 2):
        assert json.dumps(members, indent=indent, ensure_ascii=False) == json.dumps(plain, indent=indent)
    assert f"{Status.FAILED}: x" == "failed: x" and str(Visibility.HIDDEN) == "hidden"


def test_a_status_read_back_from_json_is_its_member():
    read = json.loads(json.dumps({"status": Status.SAME_CAUSE}))["status"]
    assert type(read) is str and read == Status.SAME_CAUSE and read in report.STATUS_WORDS


def test_every_status_has_its_words_and_every_withheld_visibility_its_sentence():
    assert set(report.STATUS_WORDS) == set(Status)
    assert set(gradescope._WHEN) == set(Visibility) - {Visibility.VISIBLE}
    assert "after_published" in VISIBILITIES and "public" not in VISIBILITIES


def test_junit_and_results_json_hold_the_plain_words(tmp_path):
    scored = [_scored(Status.FAILED, Visibility.AFTER_PUBLISHED)]
    results = report.results_json(scored, execution_time=1.0, isolation="none")
    text = json.dumps(results, indent=2, ensure_ascii=False)
    assert '"status": "failed"' in text and '"visibility": "after_published"' in text
    junit = report.write_junit(scored, tmp_path, execution_time=1.0).read_text(encoding="utf-8")
    assert 'type="failed"' in junit and 'value="after_published"' in junit and "Status." not in junit
