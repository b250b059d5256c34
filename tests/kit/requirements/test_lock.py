"""requirements/*.txt lock what pyproject.toml pins, whole tree and hashes, and the venv is the lock.

A grade must not move when a dependency releases, so every install is `pip install --require-hashes`
from one of these files; these tests catch a lock left stale after a pin changed in pyproject.toml.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from grader.paths import KIT_ROOT

KIT = KIT_ROOT
PYPROJECT = tomllib.loads((KIT / "pyproject.toml").read_text())
LOCKS = ("grading", "dev", "bench")


def read_lock(name: str) -> dict[str, tuple[Requirement, list[str]]]:
    """Package name -> (its requirement, its hashes), from a pip requirements file with hashes.

    The locks are universal: a package may be pinned twice under exclusive markers (numpy for
    Python 3.11 and for 3.12+). Only the entries whose marker holds here are kept: the lock as this
    interpreter installs it.
    """
    text = (KIT / f"requirements/{name}.txt").read_text()
    out = {}
    for line in text.replace("\\\n", " ").splitlines():
        words = line.split("#", 1)[0].split("--hash=")  # no "#" in a requirement, a marker or a hash
        if words[0].strip():
            req = Requirement(words[0].strip())
            if req.marker is not None and not req.marker.evaluate():
                continue
            out[canonicalize_name(req.name)] = (req, [h.strip() for h in words[1:]])
    return out


def top_level(lock: str) -> list[Requirement]:
    project = PYPROJECT["project"]
    reqs = list(project["dependencies"])
    if lock in ("dev", "bench"):
        reqs += PYPROJECT["dependency-groups"]["dev"]
    if lock == "bench":
        reqs += project["optional-dependencies"]["bench"]
    return [Requirement(r) for r in reqs]


@pytest.mark.parametrize("lock", LOCKS)
def test_every_locked_package_is_pinned_and_hashed(lock):
    entries = read_lock(lock)
    assert entries
    for name, (req, hashes) in entries.items():
        assert [s.operator for s in req.specifier] == ["=="], f"{lock}: {name} is not pinned with =="
        assert hashes and all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in hashes), (
            f"{lock}: {name} has no sha256 hash"
        )


@pytest.mark.parametrize("lock", LOCKS)
def test_the_lock_holds_pyprojects_pins(lock):
    """A pin changed in pyproject.toml without `make lock` leaves the lock stale."""
    entries = read_lock(lock)
    for want in top_level(lock):
        name = canonicalize_name(want.name)
        assert name in entries, f"requirements/{lock}.txt lacks {want}: run `make lock`"
        assert entries[name][0].specifier == want.specifier, (
            f"requirements/{lock}.txt has {entries[name][0]}, pyproject.toml {want}: run `make lock`"
        )


@pytest.mark.parametrize(("smaller", "larger"), [("grading", "dev"), ("dev", "bench")])
def test_each_lock_extends_the_one_before_with_the_same_versions(smaller, larger):
    """Gradescope installs grading.txt and the kit tests itself with dev.txt: one version of each."""
    small, large = read_lock(smaller), read_lock(larger)
    for name, (req, hashes) in small.items():
        assert name in large, f"{larger}.txt lacks {name}"
        assert large[name][0].specifier == req.specifier and large[name][1] == hashes, name


@pytest.mark.skipif(
    Path(sys.prefix).resolve() != (KIT / ".venv").resolve(), reason="runs only in the kit's own .venv"
)
def test_the_kits_venv_holds_exactly_the_dev_lock():
    """`make venv` installs the dev lock and nothing else (`make bench` adds the bench lock).

    pip comes with the venv, and the kit itself is installed in it (editable, without dependencies).
    """

    def locked(lock):
        return {
            name: str(req.specifier).removeprefix("==")
            for name, (req, _) in read_lock(lock).items()
            if req.marker is None or req.marker.evaluate()
        }

    installed = {
        canonicalize_name(d.metadata["Name"]): d.version
        for d in importlib.metadata.distributions()
        if canonicalize_name(d.metadata["Name"]) not in ("pip", "bpe-kit")
    }
    assert installed in (locked("dev"), locked("bench"))
