"""The Slurm template, run for real: a one-node cluster (Debian's slurm-wlm and munge, started here
with a generated slurm.conf, a munge key of its own, free ports and private state folders) grades a
small fake class as an ordinary user through grader/release/templates/slurm-array.sh, then merges
the shards with the template's own merge step. The merged gradebook must be what a local `farm
grade` of the same class writes, and every student must have been graded in user namespaces
("userns"), without root.

As root (CI), the daemons run as a cluster's do (munged as `munge`, slurmctld and slurmd as root)
and the class is graded as the ordinary user `sandboxed.ordinary_user` makes. As an ordinary user,
the whole cluster runs as that user (Slurm allows it: SlurmUser and SlurmdUser name it), and so do
its jobs. Skips, saying why, only where Slurm is not installed (.ci/run installs it with apt-get).
"""

from __future__ import annotations

import csv
import json
import os
import pwd
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import jail
import pytest
from instructor_fakes import make_submission, write_suite
from sandboxed import KIT_ROOT, PYTHON, ordinary_user

from grader.sandbox.isolation import Isolation

pytestmark = [pytest.mark.slow]

TEMPLATE = KIT_ROOT / "grader/release/templates/slurm-array.sh"
DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch")
# Where the daemons are, whatever the PATH of whoever runs the test (an ordinary user's has no sbin).
DAEMON_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
CLASS = {"ann": ("1.1", "1.2", "2.1", "3.1"), "bob": ("1.1",), "cy": ("1.2", "2.1")}
# What differs between two gradings of the same class: the clock and the isolation (root here).
UNCOMPARED = ("seconds", "isolation")


def _free_ports(n: int) -> list[int]:
    """`n` distinct free ports: each socket stays bound until all are picked, so no two are the same."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _wait_for(what: str, ready, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if ready():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} did not come up in {timeout:g} s")


class Cluster:
    """munged, slurmctld and slurmd of one node, under `root`, whose jobs run as `user`; `stop()`
    ends all three. Started by root, the daemons run as a cluster's do; started by an ordinary user
    (then `user` itself), all of it runs as that user."""

    def __init__(self, root: Path, user: str) -> None:
        self.root = root
        self.conf = root / "slurm.conf"
        self.env = {"PATH": DAEMON_PATH, "SLURM_CONF": str(self.conf)}
        self.as_root = os.geteuid() == 0
        self.pids: list[Path] = []
        try:
            self._start(user)
        except BaseException:
            self.stop()
            raise

    def _start(self, user: str) -> None:
        root = self.root
        # munged runs as `munge` where a cluster's would (it refuses to run as root), else as the user.
        munge = pwd.getpwnam("munge") if self.as_root else pwd.getpwuid(os.getuid())
        for name, mode in (("munge", 0o700), ("sock", 0o755)):
            (root / name).mkdir(mode=mode)
            os.chown(root / name, munge.pw_uid, munge.pw_gid)
        # A key of this cluster's own: the host's /etc/munge/munge.key is not the test's to read.
        key = root / "munge" / "key"
        key.write_bytes(secrets.token_bytes(1024))
        os.chown(key, munge.pw_uid, munge.pw_gid)
        key.chmod(0o400)
        socket_path = root / "sock" / "munge.sock"
        as_munge = {"user": munge.pw_uid, "group": munge.pw_gid, "extra_groups": []} if self.as_root else {}
        subprocess.run(
            [
                "munged",
                f"--socket={socket_path}",
                f"--key-file={key}",
                f"--pid-file={root / 'munge' / 'pid'}",
                f"--log-file={root / 'munge' / 'log'}",
                f"--seed-file={root / 'munge' / 'seed'}",
            ],
            **as_munge,
            env=self.env,
            check=True,
            capture_output=True,
        )
        self.pids.append(root / "munge" / "pid")
        for name in ("state", "spool", "log"):
            (root / name).mkdir()
        host = socket.gethostname().split(".")[0]
        ctld_port, slurmd_port = _free_ports(2)
        settings = {
            "ClusterName": "bpekit",
            "SlurmctldHost": f"{host}(127.0.0.1)",
            "SlurmctldPort": ctld_port,
            "SlurmdPort": slurmd_port,
            "AuthType": "auth/munge",
            "AuthInfo": f"socket={socket_path}",
            "CredType": "cred/munge",
            "SlurmUser": "root" if self.as_root else user,
            "SlurmdUser": "root" if self.as_root else user,
            "StateSaveLocation": root / "state",
            "SlurmdSpoolDir": root / "spool",
            "SlurmctldPidFile": root / "slurmctld.pid",
            "SlurmdPidFile": root / "slurmd.pid",
            "SlurmctldLogFile": root / "log" / "slurmctld.log",
            "SlurmdLogFile": root / "log" / "slurmd.log",
            "ProctrackType": "proctrack/linuxproc",
            "TaskPlugin": "task/none",
            "JobAcctGatherType": "jobacct_gather/none",
            "AccountingStorageType": "accounting_storage/none",
            "SchedulerType": "sched/builtin",
            "SelectType": "select/cons_tres",
            "SelectTypeParameters": "CR_CPU",
            "MpiDefault": "none",
            "ReturnToService": 2,
            "SlurmdParameters": "config_overrides",  # the template asks for 2 CPUs and 8G
        }
        lines = [f"{k}={v}" for k, v in settings.items()]
        lines += [
            f"NodeName={host} NodeAddr=127.0.0.1 CPUs=2 RealMemory=16384 State=UNKNOWN",
            "PartitionName=grade Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
        ]
        self.conf.write_text("\n".join(lines) + "\n")
        subprocess.run(["slurmctld", "-f", str(self.conf)], check=True, capture_output=True, env=self.env)
        self.pids.append(root / "slurmctld.pid")
        slurmd = ["slurmd", "-f", str(self.conf)]
        if self.as_root:
            # slurmd in a mount namespace of its own where the user can reach the kit's Python
            # (which may live under /root, as with pyenv): its jobs inherit that view.
            opened = {"user": user, "reach": jail.reach_for_user(), "exec": slurmd}
            slurmd = [
                "unshare",
                "--mount",
                "--propagation",
                "private",
                PYTHON,
                jail.__file__,
                json.dumps(opened),
            ]
        subprocess.run(slurmd, check=True, capture_output=True, env=self.env)
        self.pids.append(root / "slurmd.pid")
        _wait_for("the Slurm node", lambda: "idle" in self.run(["sinfo", "-h", "-o", "%T"]).stdout)

    def run(self, argv, **kw) -> subprocess.CompletedProcess:
        return subprocess.run(
            argv, env={**self.env, **kw.pop("env", {})}, capture_output=True, text=True, **kw
        )

    def stop(self, patience: float = 10) -> None:
        """SIGTERM each daemon, wait for all to exit, SIGKILL those still there after `patience` s:
        none may outlive the test and write into its folder while it is removed."""
        pids = []
        for pid_file in reversed(self.pids):
            try:
                pids.append(int(pid_file.read_text().split()[0]))
                os.kill(pids[-1], signal.SIGTERM)
            except (OSError, ValueError, IndexError):
                pass
        end = time.monotonic() + patience
        while (alive := [p for p in pids if _alive(p)]) and time.monotonic() < end:
            time.sleep(0.1)
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _alive(pid: int) -> bool:
    """Running: not gone, and not a zombie waiting to be reaped (it writes nothing more)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


@pytest.fixture
def cluster():
    missing = [d for d in DAEMONS if shutil.which(d, path=DAEMON_PATH) is None]
    if missing:
        pytest.skip(
            f"Slurm is not installed here (no {', '.join(missing)}): "
            "apt-get install slurm-wlm munge (.ci/run does)"
        )
    user = ordinary_user()
    root = Path(tempfile.mkdtemp(prefix="bpe-kit-slurm-", dir="/tmp"))
    root.chmod(0o755)
    made = None
    try:
        made = Cluster(root, user)
        yield made, user
    finally:
        if made is not None:
            made.stop()
        shutil.rmtree(root, ignore_errors=True)


def _kit_copy(dest: Path, owner: pwd.struct_passwd) -> None:
    """The kit as an instructor has it on a shared filesystem, owned by them (the template writes
    its outputs beside it); the venv is the kit's own, reached through a link."""
    skip = shutil.ignore_patterns(".venv", ".git", "__pycache__", ".pytest_cache", ".hypothesis", "results")
    shutil.copytree(KIT_ROOT, dest, ignore=skip, symlinks=True)
    (dest / ".venv").symlink_to(KIT_ROOT / ".venv")
    _give(dest, owner)


def _give(folder: Path, owner: pwd.struct_passwd) -> None:
    for dirpath, dirs, files in os.walk(folder):
        for name in [dirpath, *(os.path.join(dirpath, n) for n in [*dirs, *files])]:
            os.lchown(name, owner.pw_uid, owner.pw_gid)


def _gradebook(folder: Path) -> dict[str, dict]:
    with open(folder / "gradebook.csv", newline="") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def test_the_slurm_template_grades_a_class_as_an_ordinary_user_in_user_namespaces(cluster):
    slurm, user = cluster
    owner = pwd.getpwnam(user)
    kit = slurm.root / "kit"
    _kit_copy(kit, owner)
    tests, rubric = write_suite(kit / "class-suite")
    for student, points in CLASS.items():
        make_submission(kit / "submissions", student, points=points)
    _give(kit, owner)
    farm_args = f"--tests-dir {tests} --rubric {rubric} --budget 300"
    as_user = {"cwd": kit}
    if os.geteuid() == 0:
        as_user.update(user=owner.pw_uid, group=owner.pw_gid, extra_groups=[])
    env = {"HOME": owner.pw_dir, "USER": user, "FARM_ARGS": farm_args}

    # As the header says: the array (two shards here), then the merge once it is done.
    array = slurm.run(["sbatch", "--parsable", "--array=1-2", str(TEMPLATE)], env=env, **as_user)
    assert array.returncode == 0, array.stderr
    job = array.stdout.strip().split(";")[0]
    merge = re.search(r"sbatch (--dependency=\S+) --wrap '([^']+)'", TEMPLATE.read_text())
    dependency = merge.group(1).replace('"$jid"', job)
    merged = slurm.run(
        ["sbatch", "--wait", dependency, "--wrap", merge.group(2)], env=env, timeout=900, **as_user
    )
    logs = "\n".join(p.read_text(errors="replace")[-2000:] for p in sorted(kit.glob("slurm-*.out")))
    assert merged.returncode == 0, f"the merge job failed: {merged.stderr}\n{logs}"

    local = slurm.root / "local"
    done = subprocess.run(
        [PYTHON, "-m", "grader.farm", "grade", "submissions", "--out", str(local), *shlex.split(farm_args)],
        cwd=kit,
        env={**os.environ, "PYTHONPATH": str(kit)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    class_book, local_book = _gradebook(kit / "class"), _gradebook(local)
    assert sorted(class_book) == sorted(CLASS)
    strip = lambda book: {s: {k: v for k, v in r.items() if k not in UNCOMPARED} for s, r in book.items()}  # noqa: E731
    assert strip(class_book) == strip(local_book), logs
    assert {r["isolation"] for r in class_book.values()} == {Isolation.USERNS}, logs
    assert {r["total"] for r in class_book.values()} == {"100", "10", "50"}
