"""What counts as a hidden fixture found in a handout file (grader/release/leaks.py HiddenFixture)."""

from __future__ import annotations

from grader.release.leaks import HiddenFixture


def _lines(n: int, tag: str) -> list[bytes]:
    return [f"{tag} line {i:02d} of a hidden fixture, long enough".encode() for i in range(n)]


def test_a_hidden_file_pasted_whole_or_mostly_is_found():
    lines = _lines(8, "h")
    hidden = HiddenFixture("data/fixtures/hidden/x.txt", b"\n".join(lines) + b"\n")
    assert hidden.found_in(b"prefix\n" + b"\n".join(lines) + b"\nsuffix")
    assert hidden.found_in(b"\n".join(lines[:4] + _lines(3, "p")))  # half of its long lines
    assert not hidden.found_in(b"\n".join(lines[:3] + _lines(9, "p")))  # a few coincide


def test_a_file_with_few_long_lines_is_judged_by_its_body_alone():
    """Two corpora from one generator share their commonest merges: 3 of 5 long lines coincide."""
    lines = _lines(5, "h")
    hidden = HiddenFixture("data/fixtures/hidden/m.txt", b"\n".join(lines) + b"\n")
    assert not hidden.found_in(b"\n".join(lines[:3] + _lines(20, "p")))
    assert hidden.found_in(b"x\n" + b"\n".join(lines) + b"\ny")
