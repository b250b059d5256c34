"""Grade a catalogue submission the way `make grade` does, inside a jail that outlives the grader.

`grade_in_jail()` runs `python -m grader grade ...` through `tests/kit/sandboxed.run_sandboxed`
(a fresh PID namespace under prlimit caps). Inside it, this file runs as the namespace's init: it
makes the kit read-only (so a broken sandbox cannot damage the working tree), puts everything in a
pids cgroup when one can be made (root ignores RLIMIT_NPROC), runs the grader, then waits
`linger` seconds and lists every process still alive in the namespace: a daemon that escaped the
grader's cleanup shows up there. When init exits, the kernel kills whatever is left.

With `user=NAME` the grader runs as that ordinary user, as on a Slurm node or a TA's laptop. The
jail's own mount namespace then lets the user reach the kit, its Python, the submission and the
report folder: a folder on the way that the user may not enter (/root, pytest's 0700 temp dirs) is
covered, in the jail only, by a tmpfs holding just the way on.

`run_in_jail()` runs any commands so (the class farm, say); with `private_tmp` they get a /tmp of
their own, and what they leave in it is reported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from grader.sandbox.options import NPROC as GRADING_NPROC

HERE = Path(__file__).resolve().parent
KIT_ROOT = HERE.parents[1]
CGROUP_PIDS = Path("/sys/fs/cgroup/pids")
# Tasks of one jail in all (threads too): a grading's own budget (grader/sandbox/box.py NPROC),
# the reference's few, the grader's; past that the cgroup stops what the budget did not.
PIDS_MAX = GRADING_NPROC + 400


@dataclass
class Jailed:
    returncode: int  # the grader's exit status (of a run of several commands: the first not 0)
    leftovers: list[str]  # "pid cmdline" of processes alive `linger` s after the grader ended
    stdout: str
    stderr: str
    results: dict | None  # out/results.json, parsed (None if missing or not JSON)
    out_files: list[str]  # names in the out dir after grading
    seconds: float
    left_in_tmp: list[str] | None = None  # with `private_tmp`: what the run left in /tmp
    suite_records: list[dict] | None = None  # grade_in_jail(suite_records=...): the file, parsed


def grade_in_jail(
    submission: Path,
    out: Path,
    *,
    tests: str | None = None,
    linger: float = 0.3,
    timeout: float = 600,
    readonly: bool = True,
    options: tuple[str, ...] = (),
    user: str | None = None,
    suite_records: Path | None = None,
) -> Jailed:
    """Grade `submission` into `out` (created here) through the kit's CLI, jailed; `options` are
    more CLI arguments (e.g. `--isolation process-group`); `user`: grade as that ordinary user;
    `suite_records`: a file, outside `out`, for the suite's raw records (`--suite-records`)."""
    # One process per grade: the kit's tests already fill every core with gradings (xdist).
    argv = [sys.executable, "-m", "grader", "grade", str(submission), "--out", str(out), "--jobs", "1"]
    if tests:
        argv += ["--tests", tests]
    reach = [str(Path(submission).resolve()), str(out)]
    if suite_records is not None:
        Path(suite_records).parent.mkdir(parents=True, exist_ok=True)
        argv += ["--suite-records", str(suite_records)]
        reach.append(str(Path(suite_records).parent))
    argv += list(options)
    out = Path(out)
    if user is not None:
        make_owned(out, user)
    done = run_in_jail(
        [argv],
        out.parent / (out.name + ".jail"),
        out=out,
        reach=reach,
        linger=linger,
        timeout=timeout,
        readonly=readonly,
        user=user,
    )
    if suite_records is not None:
        try:
            done.suite_records = json.loads(Path(suite_records).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            done.suite_records = None
    return done


def run_in_jail(
    commands: list[list[str]],
    work: Path,
    *,
    out: Path | None = None,
    reach: list[str] = (),
    linger: float = 0.3,
    timeout: float = 600,
    readonly: bool = True,
    user: str | None = None,
    private_tmp: bool = False,
) -> Jailed:
    """Run `commands` one after the other (up to the first that fails) from the kit's folder,
    jailed; the jail's own files go in `work` (made here). `reach`: what else `user` must reach.
    `private_tmp`: the commands get a /tmp of their own holding only the way to `work` and
    `reach`, and whatever else is in it when they end is reported (`left_in_tmp`)."""
    # sandboxed.py is a helper of the kit's tests, which is on the path under pytest but not when
    # kill_matrix.py runs this as a script: added for that import only, and taken off again.
    sys.path.insert(0, str(KIT_ROOT / "tests" / "kit"))
    try:
        from sandboxed import PYTHON, run_sandboxed
    finally:
        sys.path.remove(str(KIT_ROOT / "tests" / "kit"))
    work = Path(work)
    work.mkdir(parents=True)
    cgroup = CGROUP_PIDS / f"bpe-kit-catalogue-{uuid.uuid4().hex[:12]}"
    config = {
        "commands": [list(map(str, argv)) for argv in commands],
        "cwd": str(KIT_ROOT),
        "linger": linger,
        "report": str(work / "report.json"),
        "stdout": str(work / "stdout"),
        "stderr": str(work / "stderr"),
        "timeout": timeout,
        "readonly": [str(KIT_ROOT)] if readonly else [],
        "cgroup": str(cgroup),
        "user": user,
        "reach": [*reach_for_user(), *map(str, reach)],
        # The kit itself too, when it lives under /tmp (a clone made there).
        "private_tmp": [str(work), str(KIT_ROOT), *map(str, reach)] if private_tmp else None,
    }
    # The test run's settings stay out, but its measured figures (grader/measured.py) go in where
    # the jail sees the same /tmp as the same user: every grading of the run then meets the same
    # budgets, measured once, as in a farm. As another user, or with a /tmp of its own (where
    # whatever a run leaves is checked), a jailed run measures for itself.
    shared = user is None and not private_tmp
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "BPE_KIT_")) or (shared and k == "BPE_KIT_MEASURED")
    }
    if user is not None:
        import pwd

        entry = pwd.getpwnam(user)
        env.update(HOME=entry.pw_dir, USER=user, LOGNAME=user)
    env["PYTHONPATH"] = str(KIT_ROOT)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    started = time.monotonic()
    try:
        proc = run_sandboxed(
            [PYTHON, str(Path(__file__).resolve()), json.dumps(config)],
            timeout=timeout * len(commands) + 60,
            cwd=KIT_ROOT,
            env=env,
        )
    finally:
        _remove_cgroup(cgroup)
    try:
        report = json.loads((work / "report.json").read_text())
    except (OSError, ValueError):
        raise AssertionError(
            f"the jail did not report (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
        ) from None
    results = None
    if out is not None:
        try:
            results = json.loads((Path(out) / "results.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
    return Jailed(
        returncode=report["returncode"],
        leftovers=report["leftovers"],
        stdout=_read(work / "stdout"),
        stderr=_read(work / "stderr"),
        results=results,
        out_files=sorted(p.name for p in Path(out).iterdir()) if out and Path(out).is_dir() else [],
        seconds=time.monotonic() - started,
        left_in_tmp=report.get("left_in_tmp"),
    )


def make_owned(folder: Path, user: str) -> None:
    """`folder`, made here and owned by `user` (who writes into it from the jail)."""
    import pwd

    entry = pwd.getpwnam(user)
    folder.mkdir(parents=True)
    os.chown(folder, entry.pw_uid, entry.pw_gid)


def _read(path: Path, limit: int = 1 << 20) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _remove_cgroup(cgroup: Path) -> None:
    if not cgroup.is_dir():
        return
    for _ in range(50):  # the namespace is gone, but the kernel may take a moment to empty it
        try:
            cgroup.rmdir()
            return
        except OSError:
            time.sleep(0.1)


# ------------------------------------------------------------------------- inside the namespace
def _mount_readonly(path: str) -> None:
    subprocess.run(["mount", "--bind", path, path], check=True, capture_output=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", path], check=True, capture_output=True)


def _open_to(uid: int, gids: set[int], paths: list[str]) -> None:
    """Let `uid` reach each path, in this mount namespace only: a folder on the way that it may not
    enter is covered by a tmpfs it may, holding only the needed entries (bound from the original)."""
    needed: dict[str, set[str]] = {}
    for path in paths:
        parts = Path(path).parts
        for depth in range(1, len(parts)):
            needed.setdefault(str(Path(*parts[:depth])), set()).add(parts[depth])
    # The originals are kept on a tmpfs over /mnt (the jail's own: nothing is made on the host).
    stash = Path("/mnt")
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "mode=0700", "tmpfs", str(stash)], check=True, capture_output=True
    )
    for n, folder in enumerate(sorted(needed, key=lambda f: len(Path(f).parts))):
        st = os.stat(folder)
        bits = 0o100 if st.st_uid == uid else 0o010 if st.st_gid in gids else 0o001
        if st.st_mode & bits:
            continue
        keep = stash / str(n)
        keep.mkdir()
        subprocess.run(["mount", "--rbind", folder, str(keep)], check=True, capture_output=True)
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", folder], check=True, capture_output=True
        )
        for name in needed[folder]:
            src, dst = keep / name, Path(folder) / name
            if not src.exists():
                continue
            dst.mkdir() if src.is_dir() else dst.touch()
            subprocess.run(["mount", "--rbind", str(src), str(dst)], check=True, capture_output=True)


def _private_tmp(keep: list[str]) -> set[str]:
    """A /tmp of this mount namespace's own, holding only the way to each path of `keep` that is
    under /tmp (bound from the real one); returns what it made there, to tell it from what a run
    leaves behind (`_left_in_tmp`)."""
    real = Path("/mnt")  # the real /tmp, seen here until its kept paths are bound
    subprocess.run(["mount", "--rbind", "/tmp", str(real)], check=True, capture_output=True)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "mode=1777", "tmpfs", "/tmp"], check=True, capture_output=True
    )
    made: set[str] = set()
    kept = [Path(p) for p in sorted(keep) if Path(p).is_relative_to("/tmp")]
    for path in kept:
        rel = path.relative_to("/tmp")
        if not (real / rel).exists() or any(path != k and path.is_relative_to(k) for k in kept):
            continue
        dst = Path("/tmp") / rel
        for parent in reversed(dst.parents[:-2]):
            parent.mkdir(mode=0o755, exist_ok=True)
            made.add(str(parent))
        dst.mkdir(exist_ok=True) if (real / rel).is_dir() else dst.touch()
        subprocess.run(["mount", "--rbind", str(real / rel), str(dst)], check=True, capture_output=True)
        made.add(str(dst))
    subprocess.run(["umount", "--recursive", "--lazy", str(real)], check=True, capture_output=True)
    return made


def _left_in_tmp(made: set[str]) -> list[str]:
    """What is in /tmp besides the way to the kept paths (not looked into: they are the real ones)."""
    left = []
    for dirpath, dirs, files in os.walk("/tmp"):
        for name in [*dirs, *files]:
            path = os.path.join(dirpath, name)
            if path not in made:
                left.append(path)
        dirs[:] = [
            d
            for d in dirs
            if os.path.join(dirpath, d) in made and not os.path.ismount(os.path.join(dirpath, d))
        ]
    return sorted(left)


def _enter_cgroup(cgroup: Path) -> None:
    try:
        cgroup.mkdir()
        (cgroup / "pids.max").write_text(str(PIDS_MAX))
        (cgroup / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        pass  # no pids controller here: the grader's own caps are all there is


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _outlived(grace: float = 3.0) -> list[str]:
    """The processes still alive after the linger. One caught while it exits (its memory, and so its
    command line, already gone) is given up to `grace` s to finish: a daemon stays, an exit does not."""
    _reap()
    found = _alive()
    deadline = time.monotonic() + grace
    while found and time.monotonic() < deadline:
        time.sleep(0.1)
        _reap()
        found = _alive()
    return found


def _alive() -> list[str]:
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if state not in ("Z", "X"):  # zombies and the dead are no one's leftovers
            found.append(f"{entry} {cmd[:200]}")
    return found


def _inner(config: dict) -> None:
    made = _private_tmp(config["private_tmp"]) if config.get("private_tmp") else None
    as_user = {}
    if config.get("user"):
        import pwd

        entry = pwd.getpwnam(config["user"])
        gids = {entry.pw_gid, *os.getgrouplist(entry.pw_name, entry.pw_gid)}
        _open_to(entry.pw_uid, gids, config["reach"])
        as_user = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": sorted(gids)}
    for path in config["readonly"]:
        _mount_readonly(path)
    _enter_cgroup(Path(config["cgroup"]))
    returncode = 0
    with open(config["stdout"], "wb") as out, open(config["stderr"], "wb") as err:
        for argv in config["commands"]:
            proc = subprocess.Popen(
                argv, cwd=config["cwd"], stdout=out, stderr=err, stdin=subprocess.DEVNULL, **as_user
            )
            try:
                returncode = proc.wait(timeout=config["timeout"])
            except subprocess.TimeoutExpired:
                proc.kill()
                returncode = proc.wait()
            if returncode != 0:
                break
    _reap()
    time.sleep(config["linger"])
    report = {"returncode": returncode, "leftovers": _outlived()}
    if made is not None:
        report["left_in_tmp"] = _left_in_tmp(made)
    with open(config["report"], "w") as f:
        json.dump(report, f)


def open_and_exec(config: dict) -> None:
    """As root in a fresh mount namespace: `_open_to` the user, then exec `argv` (a daemon whose
    children, such as a Slurm node's jobs, run as the user and need the kit and its Python)."""
    import pwd

    entry = pwd.getpwnam(config["user"])
    _open_to(entry.pw_uid, {entry.pw_gid, *os.getgrouplist(entry.pw_name, entry.pw_gid)}, config["reach"])
    os.execvp(config["exec"][0], config["exec"])


def reach_for_user() -> list[str]:
    """What a grader run by another user needs to reach: the kit and the Python it runs on."""
    return [str(KIT_ROOT), os.path.realpath(sys.base_prefix)]


if __name__ == "__main__":
    config = json.loads(sys.argv[1])
    open_and_exec(config) if "exec" in config else _inner(config)
