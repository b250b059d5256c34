"""grader.intake: the one rule for finding a submission's `bpe`, for `make grade`, the farm and
Gradescope alike; every refusal is a SubmissionError (a GraderError) naming the submission."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from grader import intake
from grader.errors import GraderError, SubmissionError
from grader.farm.unpack import prepare


def _package(folder: Path, marker: str = "X = 1\n") -> Path:
    (folder / "bpe").mkdir(parents=True)
    (folder / "bpe" / "__init__.py").write_text(marker)
    return folder


def _zip_of(folder: Path, dest: Path) -> Path:
    with zipfile.ZipFile(dest, "w") as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                zf.write(p, p.relative_to(folder).as_posix())
    return dest


def test_a_zip_is_known_by_its_content_not_its_name(tmp_path):
    archive = _zip_of(_package(tmp_path / "src"), tmp_path / "submission-without-suffix")
    found = intake.unpack(archive, tmp_path / "scratch")
    assert (found / "bpe" / "__init__.py").read_text() == "X = 1\n"


def test_a_file_that_is_not_a_zip_is_refused_and_a_damaged_zip_is_told_so(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a zip")
    with pytest.raises(SubmissionError, match=r"^notes\.txt: not a folder and not a zip file$"):
        intake.unpack(notes, tmp_path / "scratch", shown="notes.txt")
    damaged = tmp_path / "work.zip"
    damaged.write_text("not a zip")
    with pytest.raises(SubmissionError, match=r"^work\.zip: not a readable zip file"):
        intake.unpack(damaged, tmp_path / "scratch2", shown="work.zip")


def test_a_folder_holding_one_uploaded_zip_is_graded_from_the_zip(tmp_path):
    upload = tmp_path / "submission"
    upload.mkdir()
    _zip_of(_package(tmp_path / "src", "Y = 2\n"), upload / "anything.zip")
    (upload / "notes.txt").write_text("hello")
    with intake.opened(upload) as found:
        assert (found / "bpe" / "__init__.py").read_text() == "Y = 2\n"
        kept = found
    assert not kept.exists()  # opened() removes what it unpacked


def test_a_folder_with_two_zips_and_no_package_is_refused(tmp_path):
    upload = tmp_path / "submission"
    upload.mkdir()
    for name in ("a.zip", "b.zip"):
        _zip_of(_package(tmp_path / name.replace(".", "_")), upload / name)
    with pytest.raises(SubmissionError, match="no bpe package found"):
        intake.unpack(upload, tmp_path / "scratch", shown="submission")


def test_refusals_are_grader_errors_that_name_the_submission_as_shown(tmp_path):
    with pytest.raises(SubmissionError) as info:
        intake.unpack(tmp_path / "nowhere", tmp_path / "scratch", shown="alice")
    assert isinstance(info.value, GraderError) and str(info.value) == "alice: no such file or folder"


def test_the_farm_unpacks_through_the_same_intake(tmp_path):
    archive = _zip_of(_package(tmp_path / "src"), tmp_path / "bob")  # a zip with no suffix
    assert (prepare(archive, tmp_path / "scratch") / "bpe" / "__init__.py").is_file()
    with pytest.raises(SubmissionError, match=r"^carol: no such file or folder$"):
        prepare(tmp_path / "carol", tmp_path / "scratch2")
