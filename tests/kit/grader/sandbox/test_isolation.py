"""Where workers get no namespaces, the kit says why in one line, naming what would allow them.

The namespaced grading itself (as root, and as an ordinary user in user namespaces) is proved by
the hostile catalogue (test_catalogue_hostile.py) and the Slurm template (test_slurm.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader import api, cli
from grader.sandbox import box, isolation
from grader.sandbox.isolation import Isolation
from grader.sandbox.options import Options


@pytest.fixture
def ordinary(monkeypatch):
    """This process as an ordinary user on Linux whose `unshare --user` fails."""
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(isolation.sys, "platform", "linux")
    monkeypatch.setattr(isolation.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(
        isolation, "unshare_argv", lambda: ["sh", "-c", "echo 'unshare: Operation not permitted' >&2; exit 1"]
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
    for path, refusing, how in isolation.USERNS_SWITCHES:
        name = Path(path).name
        (tmp_path / name).write_text((refusing if name == switch else "1" if refusing == "0" else "0") + "\n")
        switches.append((str(tmp_path / name), refusing, how))
    monkeypatch.setattr(isolation, "USERNS_SWITCHES", tuple(switches))
    why = isolation.namespaces_refused.__wrapped__()
    assert fix in why and str(tmp_path / switch) in why and "\n" not in why


def test_otherwise_the_refusal_of_unshare_is_quoted(ordinary, monkeypatch):
    monkeypatch.setattr(isolation, "USERNS_SWITCHES", ())
    assert "Operation not permitted" in isolation.namespaces_refused.__wrapped__()


def test_elsewhere_than_linux_the_platform_is_named(monkeypatch):
    monkeypatch.setattr(isolation.sys, "platform", "darwin")
    assert "darwin has no Linux namespaces" in isolation.namespaces_refused.__wrapped__()


def test_isolation_levels_name_an_ordinary_users_namespaces_userns(monkeypatch):
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 1000)
    assert isolation.isolation_level(namespaces=True) == Isolation.USERNS
    assert isolation.isolation_level(namespaces=False, unprivileged=False) == Isolation.PROCESS_GROUP
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 0)
    assert isolation.isolation_level(namespaces=True) == Isolation.NAMESPACES_UID


def _grade_note(monkeypatch, tmp_path, capsys, extra: dict, why: str = "") -> str:
    """What `bpe-kit grade` prints when the grade's results.json holds `extra` as its extra_data."""
    grading = api.Grading(results={"extra_data": extra}, scored=[])
    monkeypatch.setattr(cli.api, "run", lambda *a, **kw: grading)
    monkeypatch.setattr(cli.api, "write", lambda *a, **kw: None)
    monkeypatch.setattr(cli, "namespaces_refused", lambda: why)
    args = cli.build_parser().parse_args(["grade", str(tmp_path), "--out", str(tmp_path / "out")])
    assert cli.grade(args) == 0
    return " ".join(capsys.readouterr().out.split())  # the report wraps its lines


@pytest.mark.parametrize(
    ("level", "says"),
    [
        (Isolation.PROCESS_GROUP, True),
        (Isolation.UID, True),
        (Isolation.USERNS, False),
        (Isolation.NAMESPACES_UID, False),
    ],
)
def test_a_grade_without_namespaces_says_why_in_one_line(monkeypatch, tmp_path, capsys, level, says):
    why = "darwin has no Linux namespaces (grade on Linux for them)"
    out = _grade_note(monkeypatch, tmp_path, capsys, {"isolation": level}, why)
    assert f"(isolation: {level})" in out
    assert (f"Your code ran without namespaces: {why}." in out) is says


def test_a_grade_whose_worker_kept_the_users_groups_names_them(monkeypatch, tmp_path, capsys):
    out = _grade_note(
        monkeypatch, tmp_path, capsys, {"isolation": Isolation.USERNS, "kept_groups": ["disk", "docker"]}
    )
    assert "Your code ran with this user's groups too (disk, docker)" in out


def test_an_ordinary_users_other_groups_are_named_and_roots_are_none(monkeypatch):
    monkeypatch.setattr(isolation.os, "getgroups", lambda: [1000, 6, 0])
    monkeypatch.setattr(isolation.os, "getgid", lambda: 1000)
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 1000)
    assert isolation.kept_groups() == ["root", "disk"]
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 0)
    assert isolation.kept_groups() == []


def _plan(monkeypatch, tmp_path, euid: int | None = None, **options) -> tuple[box.Sandbox, list[list[str]]]:
    """The mount plan of a sandbox made for a submission in `tmp_path` (closed before returning)."""
    (tmp_path / "sub" / "bpe").mkdir(parents=True)
    (tmp_path / "sub" / "bpe" / "__init__.py").write_text("")
    if euid is not None:
        monkeypatch.setattr(isolation.os, "geteuid", lambda: euid)
    sandbox = box.Sandbox(tmp_path / "sub", Options(namespaces=True, **options))
    try:
        return sandbox, sandbox.mount_plan(sandbox.new_scratch())
    finally:
        sandbox.close()


def _covered(plan: list[list[str]], path: str) -> bool:
    """Whether a tmpfs of the plan covers `path` (itself or a folder holding it)."""
    return any(s[0] == "tmpfs" and (path + "/").startswith(s[1].rstrip("/") + "/") for s in plan)


def test_an_ordinary_users_worker_sees_only_the_systems_top_level_folders(monkeypatch, tmp_path):
    """The worker is the user outside: besides the kit, what the user could read elsewhere (another
    clone of the kit, a shared filesystem, every home) is covered; the system's folders are not,
    but for /proc, /tmp, /run and /dev (a /dev of its own), as for root."""
    sandbox, plan = _plan(monkeypatch, tmp_path, euid=1000)
    assert sandbox.isolation == Isolation.USERNS and sandbox.uid is None
    covered = {s[1] for s in plan if s[0] == "tmpfs"}
    for entry in os.scandir("/"):
        if entry.is_dir(follow_symlinks=False) and entry.name not in ("proc", "tmp", "run", "dev"):
            assert (entry.path in covered) is (entry.name not in box.SYSTEM_DIRS), entry.path
    assert {"/proc", "/tmp", "/run", "/dev", "/dev/shm"} <= covered


@pytest.mark.parametrize("euid", [1000, None], ids=["userns", "root"])
def test_a_temp_folder_beside_the_kit_leaves_the_kit_and_the_hidden_folders_covered(
    monkeypatch, tmp_path, euid
):
    """$TMPDIR in a folder that also holds the kit (say /work/notes beside /work/main, with /work a
    folder to hide): the kit, the hidden folders and, for an ordinary user, the sandbox's real path
    (its own files, which it could rewrite: the next worker runs them) stay covered."""
    if euid is None and os.geteuid() != 0:
        pytest.skip("the root sandbox needs root")
    top = tmp_path / "work"
    (top / "notes").mkdir(parents=True)
    (top / "main").mkdir()
    (top / "farm" / "alice").mkdir(parents=True)
    monkeypatch.setattr(box, "KIT_ROOT", top / "main")
    monkeypatch.setattr(box.tempfile, "tempdir", str(top / "notes"))
    sandbox, plan = _plan(monkeypatch, tmp_path, euid=euid, hide=(top, top / "farm"))
    beside_tmp = [s for s in plan if s[1] != "/tmp"]  # here all is under /tmp; /work would not be
    for hidden in (top / "main", top / "farm" / "alice"):
        assert _covered(beside_tmp, str(hidden)), f"{hidden} is visible to the worker"
    if sandbox.userns:  # the real path is under /tmp, covered after the sandbox is bound
        real = os.path.realpath(sandbox.root)
        tmp = plan.index(["tmpfs", "/tmp", "mode=1777,size=64m"])
        assert real.startswith("/tmp/") and ["bind", real, "/root/.sandbox", "ro"] in plan[:tmp]
        assert not any(s[0] == "bind" and s[1].startswith(real) for s in plan[tmp:])


def test_a_worker_gets_a_dev_of_its_own_and_no_run(monkeypatch, tmp_path):
    """The grading user's groups may open devices (`disk`) and sockets (`docker`) under /dev and
    /run: a worker sees neither, only the devices Python needs and an empty /dev/shm."""
    _, plan = _plan(monkeypatch, tmp_path, euid=1000)
    assert _covered(plan, "/run/docker.sock") and _covered(plan, "/dev/sda")
    bound = {s[2] for s in plan if s[0] == "bind" and s[2].startswith("/dev/")}
    assert bound == {f"/dev/{d}" for d in box.DEVICES if os.path.exists(f"/dev/{d}")}
    assert ["umount", "/root/.dev"] in plan and "--ipc" in isolation.UNSHARE
