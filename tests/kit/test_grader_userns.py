"""Where workers get no namespaces, the kit says why in one line, naming what would allow them.

The namespaced grading itself (as root, and as an ordinary user in user namespaces) is proved by
the hostile catalogue (test_catalogue_hostile.py) and the Slurm template (test_staff_slurm.py)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from grader import api, cli
from grader.sandbox import box


@pytest.fixture
def ordinary(monkeypatch):
    """This process as an ordinary user on Linux whose `unshare --user` fails."""
    monkeypatch.setattr(box.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(box.sys, "platform", "linux")
    monkeypatch.setattr(box.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(
        box, "unshare_argv", lambda: ["sh", "-c", "echo 'unshare: Operation not permitted' >&2; exit 1"]
    )


@pytest.mark.parametrize(
    ("switch", "fix"),
    [
        ("max_user_namespaces", "sysctl user.max_user_namespaces=15000"),
        ("apparmor_restrict_unprivileged_userns", "sysctl kernel.apparmor_restrict_unprivileged_userns=0"),
        ("unprivileged_userns_clone", "sysctl kernel.unprivileged_userns_clone=1"),
    ],
)
def test_a_kernel_setting_that_refuses_user_namespaces_is_named_with_its_fix(
    ordinary, monkeypatch, tmp_path, switch, fix
):
    switches = []
    for path, refusing, how in box.USERNS_SWITCHES:
        name = Path(path).name
        (tmp_path / name).write_text((refusing if name == switch else "1" if refusing == "0" else "0") + "\n")
        switches.append((str(tmp_path / name), refusing, how))
    monkeypatch.setattr(box, "USERNS_SWITCHES", tuple(switches))
    why = box.namespaces_refused.__wrapped__()
    assert fix in why and str(tmp_path / switch) in why and "\n" not in why


def test_otherwise_the_refusal_of_unshare_is_quoted(ordinary, monkeypatch):
    monkeypatch.setattr(box, "USERNS_SWITCHES", ())
    assert "Operation not permitted" in box.namespaces_refused.__wrapped__()


def test_elsewhere_than_linux_the_platform_is_named(monkeypatch):
    monkeypatch.setattr(box.sys, "platform", "darwin")
    assert "darwin has no Linux namespaces" in box.namespaces_refused.__wrapped__()


def test_isolation_levels_name_an_ordinary_users_namespaces_userns(monkeypatch):
    monkeypatch.setattr(box.os, "geteuid", lambda: 1000)
    assert box.isolation_level(namespaces=True) == "userns"
    assert box.isolation_level(namespaces=False, unprivileged=False) == "process-group"
    monkeypatch.setattr(box.os, "geteuid", lambda: 0)
    assert box.isolation_level(namespaces=True) == "namespaces+uid"


@pytest.mark.parametrize(
    ("level", "says"), [("process-group", True), ("userns", False), ("namespaces+uid", False)]
)
def test_a_grade_without_namespaces_says_why_in_one_line(monkeypatch, tmp_path, capsys, level, says):
    why = "darwin has no Linux namespaces (grade on Linux for them)"
    grading = api.Grading(results={"extra_data": {"isolation": level}}, scored=[])
    monkeypatch.setattr(cli.api, "run", lambda *a, **kw: grading)
    monkeypatch.setattr(cli.api, "write", lambda *a, **kw: None)
    monkeypatch.setattr(cli, "namespaces_refused", lambda: why)
    args = argparse.Namespace(
        submission=tmp_path,
        out=tmp_path / "out",
        tests=None,
        part=None,
        tests_dir=None,
        rubric=None,
        inprocess=False,
        timeout_total=None,
        isolation="auto",
        contract="kit",
        python=None,
        error_results=False,
    )
    assert cli.grade(args) == 0
    out = " ".join(capsys.readouterr().out.split())  # the report wraps its lines
    assert f"(isolation: {level})" in out
    assert (f"Your code ran without namespaces: {why}." in out) is says


def test_an_ordinary_users_worker_sees_only_the_systems_top_level_folders(monkeypatch, tmp_path):
    """The worker is the user outside: besides the kit, what the user could read elsewhere (another
    clone of the kit, a shared filesystem, every home) is covered; the system's folders are not."""
    (tmp_path / "sub" / "bpe").mkdir(parents=True)
    (tmp_path / "sub" / "bpe" / "__init__.py").write_text("")
    monkeypatch.setattr(box.os, "geteuid", lambda: 1000)
    sandbox = box.Sandbox(tmp_path / "sub", box.Options(namespaces=True))
    try:
        assert sandbox.isolation == "userns" and sandbox.uid is None
        covered = {s[1] for s in sandbox.mount_plan(sandbox.new_scratch()) if s[0] == "tmpfs"}
    finally:
        sandbox.close()
    holds_sandbox = lambda d: str(sandbox.root).startswith(d + "/")  # noqa: E731
    for entry in os.scandir("/"):  # /proc and /tmp are always covered, as for root
        if (
            entry.is_dir(follow_symlinks=False)
            and not holds_sandbox(entry.path)
            and entry.name not in ("proc", "tmp")
        ):
            assert (entry.path in covered) is (entry.name not in box.SYSTEM_DIRS), entry.path
    assert "/run/user" in covered or not os.path.isdir("/run/user")
