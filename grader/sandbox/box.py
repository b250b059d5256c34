"""The worker's world: a fresh directory holding the worker runtime, a read-only copy of the
submission, read-only copies of input files, and one writable scratch directory per worker.

`Sandbox.command()` says how a worker enters its isolation (which one: isolation.py). With
namespaces (isolation.namespaces_available), the worker gets new
PID, mount, network and IPC namespaces; the kit, /autograder, the output directory, the trusted
user's home, /run, /proc and the shared temp dirs are covered with empty tmpfs mounts, /dev by one
holding only the devices Python needs; the sandbox is re-mounted read-only at the fixed path
/tmp/bpe-kit (so messages do not depend on a random name). As root ("namespaces+uid") the worker
then drops to a uid of its sandbox's own (`SANDBOX_IDS`). As an ordinary user ("userns") the same
namespaces come from a user namespace in which the user is root, so the same mount plan runs; the
worker then enters a second user namespace as uid 65534 with no capabilities, where it can neither
undo those mounts nor name the grader's processes (they are outside its PID namespace); it keeps
the user's supplementary groups, which no user namespace can drop (isolation.kept_groups). Without
namespaces, root still drops to the sandbox's uid when the interpreter allows ("uid"); otherwise the
worker runs as this user ("process-group"). Always: its own session, and rlimits.

Each grading has a process budget of its own (`Limits.nproc`, `nproc_base`). RLIMIT_NPROC counts the
tasks (processes and threads) of the worker's uid, machine-wide: with one uid for every worker, two
gradings side by side (a farm's jobs, the kit's own test workers) shared one budget, and one
student's pool failed another's tests. So, as root, each sandbox draws a uid (and a group, the same
number) of its own from `SANDBOX_IDS`, which no account uses: the budget counts that sandbox's
processes only, with or without namespaces, and no worker can signal another grading's. A pids
cgroup would also do, but only where the cgroup tree is writable and delegated (not in most
containers, nor on a Slurm node), while a uid needs nothing but root. As an ordinary user, Linux
5.14 and later count RLIMIT_NPROC per user namespace (ucounts): the worker's own namespaces hold its
count, and nothing outside adds to it. Only "process-group" (and a user namespace on an older
kernel) shares the user's count: there the budget starts from the tasks the user already runs.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import secrets
import shutil
import sys
import tempfile
from pathlib import Path

from ..errors import SubmissionError
from ..i18n import _
from ..paths import KIT_ROOT, SANDBOX_DIR
from . import bytecode, student_python
from .isolation import (
    NOBODY,
    Isolation,
    isolation_level,
    namespaces_available,
    unprivileged_python,
    unshare_argv,
)
from .options import Options

# All the worker imports of the grader's:
WORKER_RUNTIME = ("_linux.py", "call_words.py", "forker.py", "importing.py", "wire.py", "worker.py")
VIEW_ROOT = "/tmp/bpe-kit"
# The uids (and groups) drawn one per sandbox as root: above every account and system id, below the
# 2**31 some tools mishandle; no file outside a sandbox belongs to one.
SANDBOX_IDS = range(1 << 20, 1 << 21)
SUBMISSION_MAX_BYTES = 20 * 1024 * 1024
SUBMISSION_MAX_FILES = 2000
SCRATCH_SIZE = "64m"
# When the worker is the user outside its namespaces it could read all the user can: every
# top-level folder but the system's is covered (/home, /work, /scratch, /srv, a cluster's shared
# filesystems: other clones of the kit, other students' work), and the user's runtime folder (its
# session bus could start a process outside). The interpreter is bound back where it is covered.
SYSTEM_DIRS = frozenset(
    [
        "bin",
        "boot",
        "dev",
        "etc",
        "lib",
        "lib32",
        "lib64",
        "libx32",
        "opt",
        "proc",
        "run",
        "sbin",
        "sys",
        "tmp",
        "usr",
        "var",
        "nix",
        "gnu",
    ]
)


def userns_hides() -> list[str]:
    """What an ordinary user's worker must not see besides the root sandbox's hides (SYSTEM_DIRS)."""
    keep = SYSTEM_DIRS | _library_tops()
    tops = [f"/{e.name}" for e in os.scandir("/") if e.name not in keep and e.is_dir(follow_symlinks=False)]
    return sorted(tops)


def covered_folders(root: Path, extra: tuple[Path, ...] = (), *, userns: bool = False) -> list[str]:
    """The folders a worker of the sandbox at `root` sees as empty tmpfs: the kit, the trusted user's
    home, `extra` (the report folder, a class's other submissions), /run (sockets and files its
    groups could open) and, for an ordinary user's worker, every non-system top-level folder.

    A folder holding the sandbox cannot be covered (the sandbox is bound from its real path); only
    then is a folder inside another covered one left out, as covered already: a folder nested in one
    that holds the sandbox stays."""
    hides = ["/root", str(KIT_ROOT), "/autograder", os.path.expanduser("~"), "/run", *map(str, extra)]
    if userns:
        hides += userns_hides()
    real_root = os.path.realpath(root) + "/"
    hides = sorted({os.path.realpath(h) for h in hides if os.path.isdir(h)} - {"/"})
    hides = [h for h in hides if not real_root.startswith(h + "/")]
    return [h for h in hides if not any(h.startswith(o + "/") for o in hides)]


# What of /dev a worker keeps (on a fresh tmpfs /dev): the devices Python and its libraries open,
# and an empty /dev/shm (POSIX semaphores: multiprocessing). Not the terminals, the disks (a user in
# group `disk` could read them), nor the host's /dev/shm.
DEVICES = ("null", "zero", "full", "random", "urandom")


def dev_steps(stage: str = "/root/.dev") -> list[list[str]]:
    """Mount steps giving the worker a /dev of its own: the host's /dev is bound at `stage` (under
    the covered /root), its DEVICES bound from there onto the new /dev, then `stage` unmounted."""
    steps = [["mkdir", stage], ["bind", "/dev", stage, "dev"], ["tmpfs", "/dev", "mode=0755,size=64k"]]
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            steps += [["file", f"/dev/{name}"], ["bind", f"{stage}/{name}", f"/dev/{name}", "dev"]]
    return [*steps, ["umount", stage], ["mkdir", "/dev/shm"], ["tmpfs", "/dev/shm", "mode=1777,size=16m"]]


def _library_tops() -> set[str]:
    """Top-level folders of the shared libraries this interpreter was loaded with (libpython and
    what it links, say from a cluster's /apps): the worker's interpreter needs them. Extension
    modules are left out: the worker loads those from the interpreter's prefix or the sandbox."""
    skip = [os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, *sys.path) if p]
    tops = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split(maxsplit=5)[5].strip() if line.count(" ") >= 5 else ""
                if path.startswith("/") and ".so" in path and not any(path.startswith(d + "/") for d in skip):
                    tops.add(path.split("/")[1])
    except (OSError, IndexError):
        pass
    return tops


def _copy_readonly(
    src: Path,
    dst: Path,
    *,
    skip_symlinks: bool = True,
    leave: tuple[str, ...] = ("__pycache__", "*.pyc"),
    seal: bool = True,
) -> None:
    """Copy a file or a tree but what `leave` matches, leaving everything read-only to its owner
    and readable by all (`seal=False`: the caller seals it, after writing more into it)."""
    if src.is_file():
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        os.chmod(dst, 0o444)
        return
    shutil.copytree(src, dst, symlinks=False, ignore=shutil.ignore_patterns(*leave))
    if seal:
        _seal(dst)


def _seal(root: Path) -> None:
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            os.chmod(os.path.join(dirpath, name), 0o444)
        os.chmod(dirpath, 0o555)


def copy_submission(parent: Path, dst: Path, python: str | None = None) -> None:
    """Copy `parent/bpe` (regular files only: symlinks, devices and caches are left behind), then
    compile the copy with `python` (bytecode.py) when given."""
    package = parent / "bpe"
    if not package.is_dir() or package.is_symlink():
        raise SubmissionError(_("{folder}: no bpe/ package folder in it").format(folder=parent))
    total = count = 0
    for dirpath, dirnames, files in os.walk(package):
        dirnames[:] = [
            d for d in dirnames if d != "__pycache__" and not os.path.islink(os.path.join(dirpath, d))
        ]
        rel = Path(dirpath).relative_to(parent)
        (dst / rel).mkdir(parents=True, exist_ok=True)
        for name in files:
            src = Path(dirpath) / name
            if src.is_symlink() or not src.is_file() or name.endswith(".pyc"):
                continue
            total += src.stat().st_size
            count += 1
            if total > SUBMISSION_MAX_BYTES or count > SUBMISSION_MAX_FILES:
                raise SubmissionError(
                    _("{package}: larger than {mib} MiB or {files} files").format(
                        package=package, mib=SUBMISSION_MAX_BYTES // 2**20, files=SUBMISSION_MAX_FILES
                    )
                )
            shutil.copyfile(src, dst / rel / name)
    if python:
        bytecode.compile_submission(dst, python)
    _seal(dst)


class Sandbox:
    """One grading session's directory (see module docstring). `close()` removes it."""

    def __init__(self, submission_parent: Path, options: Options | None = None) -> None:
        self.options = options or Options()
        self.namespaces = (
            namespaces_available() if self.options.namespaces is None else self.options.namespaces
        )
        # In a user namespace the worker is uid 65534 of its own namespace, but the user outside:
        # nothing is chowned to it, and its sandbox needs no group of its own.
        self.userns = self.namespaces and os.geteuid() != 0
        # As root, a uid and a group of this sandbox's own (module docstring): its process budget,
        # and a sandbox no other worker can enter (say, the reference's, graded in the same run).
        self.uid = _fresh_id() if self.isolation in (Isolation.NAMESPACES_UID, Isolation.UID) else None
        # $TMPDIR, unless it is inside the kit, or uid 65534 must walk to the sandbox by its real
        # path (no namespaces) and $TMPDIR's parents may be closed to it, or the worker is this user
        # (userns): its sandbox is its own to rewrite by the real path, so that path must be under
        # /tmp, which the worker's private /tmp covers (elsewhere, the folders holding it would
        # have to stay visible, and with them what they hold).
        base = tempfile.gettempdir()
        hidden = [str(KIT_ROOT), "/root", "/autograder", os.path.expanduser("~")]
        if (
            any((os.path.realpath(base) + "/").startswith(h.rstrip("/") + "/") for h in hidden)
            or (self.uid is not None and not self.namespaces)
            or self.userns
        ):
            base = "/tmp"
        self.root = Path(tempfile.mkdtemp(prefix="bpe-kit-", dir=base))
        self.view = VIEW_ROOT if self.namespaces else str(self.root)
        self.gid = self.uid
        if self.gid is not None:
            os.chown(self.root, 0, self.gid)
            os.chmod(self.root, 0o750)
        else:
            os.chmod(self.root, 0o700)  # the worker is this user (outside any namespace it has)
        self._inputs: dict[tuple, str] = {}
        self._scratch_count = 0
        try:
            self._build(Path(submission_parent))
        except BaseException:
            self.close()
            raise

    @property
    def isolation(self) -> Isolation:
        return isolation_level(self.namespaces, self.options.unprivileged)

    def _build(self, parent: Path) -> None:
        runtime = self.root / "runtime"
        pkg = runtime / "kitworker"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text('"""The grader\'s worker runtime (a sandbox copy)."""\n')
        for name in WORKER_RUNTIME:
            shutil.copyfile(SANDBOX_DIR / name, pkg / name)
        spec = importlib.util.find_spec("regex")
        if spec is not None and spec.submodule_search_locations:
            regex = Path(next(iter(spec.submodule_search_locations)))
            # Sealed below with the runtime, once compiled: an ordinary user cannot write into a
            # sealed folder (root can, which hid this).
            _copy_readonly(
                regex, runtime / "lib" / "regex", leave=("__pycache__", "*.pyc", "tests"), seal=False
            )
        else:
            (runtime / "lib").mkdir()
        bytecode.compile_trusted(runtime)
        _seal(runtime)
        # Compiled by the kit's interpreter, never the student's (`--python` runs only confined):
        # a student's interpreter of another version reads none of it, and compiles as before.
        copy_submission(parent, self.root / "submission", _worker_python())
        (self.root / "inputs").mkdir(mode=0o755)
        (self.root / ".stage").mkdir(mode=0o700)

    # -- paths ------------------------------------------------------------------------------
    def to_view(self, real: Path) -> str:
        return self.view + "/" + str(Path(real).relative_to(self.root)) if self.namespaces else str(real)

    def copy_input(self, path: Path) -> str:
        """Copy a trusted input file (or folder) in, read-only, once per session; its view path."""
        path = Path(path)
        st = path.stat()
        key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
        if key not in self._inputs:
            slot = self.root / "inputs" / str(len(self._inputs))
            slot.mkdir()
            _copy_readonly(path, slot / path.name)
            os.chmod(slot, 0o555)
            self._inputs[key] = self.to_view(slot / path.name)
        return self._inputs[key]

    def new_scratch(self) -> Path:
        self._scratch_count += 1
        scratch = self.root / f"scratch-{self._scratch_count}"
        scratch.mkdir(mode=0o700)
        if self.uid is not None:
            os.chown(scratch, self.uid, self.gid)
        return scratch

    # -- starting a worker -----------------------------------------------------------------------
    def mount_plan(self, scratch: Path) -> list[list[str]]:
        """Mount steps the worker runs as root inside its fresh mount namespace (worker.apply_mounts)."""
        prefix = os.path.realpath(sys.base_prefix)
        stage_py = self.root / ".stage" / "py"
        stage_py.mkdir(exist_ok=True)
        hides = covered_folders(self.root, self.options.hide, userns=self.userns)
        steps = [["bind", prefix, str(stage_py), "ro"]]
        steps += [["tmpfs", h, "mode=0755,size=1m"] for h in hides]
        if any((prefix + "/").startswith(h + "/") for h in hides):
            steps += [["mkdir", prefix], ["bind", str(stage_py), prefix, "ro"]]
        # The sandbox moves to a fixed path under a private /tmp (staged through the new /root).
        # The scratch dir is a size-capped tmpfs private to the worker (the trusted side reads it
        # through /proc/<pid>/root), so a submission cannot fill the host's disk.
        steps += [
            ["mkdir", "/root/.sandbox"],
            ["bind", str(self.root), "/root/.sandbox", "ro"],
            ["tmpfs", "/tmp", "mode=1777,size=64m"],
            ["mkdir", VIEW_ROOT],
            ["bind", "/root/.sandbox", VIEW_ROOT, "ro"],
            ["tmpfs", self.to_view(scratch), f"mode=0700,{self._scratch_owner()},size={SCRATCH_SIZE}"],
        ]
        steps += dev_steps()
        steps += [["tmpfs", "/var/tmp", "mode=1777,size=16m"]] if os.path.isdir("/var/tmp") else []
        if self.options.python:
            steps = student_python.expose_steps(self.options.python, steps, hides, self.root / ".stage")
        steps += [["tmpfs", "/proc", "mode=0555,size=16k"]]
        return steps

    def test_mount_plan(self, scratch: Path) -> list[list[str]]:
        """The mounts a forked test worker makes in its own mount namespace (forker.py): a fresh
        tmpfs on every folder it may write, and the sandbox bound again inside the new /tmp. As
        root of its own user namespace, it owns the new scratch as uid 0 there (the zygote's
        uid outside)."""
        steps = [
            ["tmpfs", "/tmp", "mode=1777,size=64m"],
            ["mkdir", VIEW_ROOT],
            ["bind", "/root/.sandbox", VIEW_ROOT, "ro"],
            ["tmpfs", self.to_view(scratch), f"mode=0700,uid=0,gid=0,size={SCRATCH_SIZE}"],
            ["tmpfs", "/dev/shm", "mode=1777,size=16m"],
        ]
        return steps + ([["tmpfs", "/var/tmp", "mode=1777,size=16m"]] if os.path.isdir("/var/tmp") else [])

    @property
    def forks(self) -> bool:
        """Whether each test's worker is forked from one that imported the submission: with
        namespaces (a test worker makes its own), unless the student's interpreter lives in a
        folder a test worker covers afresh (test_mount_plan)."""
        if not (self.options.fork and self.namespaces):
            return False
        if self.options.python:
            covered = ("/tmp/", "/var/tmp/", "/dev/")
            return not any((r + "/").startswith(covered) for r in student_python.roots(self.options.python))
        return True

    def _scratch_owner(self) -> str:
        # In a user namespace the user is root of the first namespace and uid 65534 of the second.
        return "uid=0,gid=0" if self.userns else f"uid={self.uid},gid={self.gid}"

    def command(
        self, scratch: Path, token: str, fds: tuple[int, ...], *, zygote: bool = False
    ) -> tuple[list[str], dict[str, str]]:
        """argv and environment of a worker using `scratch` as its writable directory; a
        `zygote` (forker.py) has a third descriptor, the control socket, and forks test workers."""
        runtime = self.to_view(self.root / "runtime")
        config = {
            "submission": self.to_view(self.root / "submission"),
            "lib": runtime + "/lib",
            "scratch": self.to_view(scratch),
            "fds": list(fds),
            "mounts": self.mount_plan(scratch) if self.namespaces else [],
            "uid": self.uid,
            "gid": self.gid,
            "userns_uid": NOBODY if self.userns else None,
            "rlimits": self.options.limits.rlimits(self.nproc_base()),
            # The worker's parent is this process, unless `unshare` stands between them.
            "parent_pid": None if self.namespaces else os.getpid(),
        }
        if zygote:
            config["zygote"], config["test_mounts"] = True, self.test_mount_plan(scratch)
        if self.options.python:  # confined by the grader's interpreter, then exec'd (worker.become)
            config["python"], config["runtime"] = self.options.python, runtime
        # Before the mounts, the runtime is read from its real path; after, nothing else is. The
        # worker starts with -S -P and no site: this sys.path entry is the only way it finds it.
        boot = (
            f"import sys; sys.path.insert(0, {str(self.root / 'runtime')!r}); "
            "from kitworker.worker import main; main(sys.argv)"
        )
        python = _worker_python()
        if not self.namespaces and self.uid is not None:
            python = unprivileged_python()
        argv = [python, "-S", "-s", "-P", "-B", "-c", boot, json.dumps(config)]
        if self.namespaces:
            # A zygote keeps a /proc of its own PID namespace (forker.py), never the host's.
            argv = [*unshare_argv(), *(["--mount-proc"] if zygote else []), "--", *argv]
            # `unshare` must die with the grader too (its --kill-child then ends the namespace):
            # setpriv sets that before its exec, where a preexec_fn would be unsafe next to threads.
            if shutil.which("setpriv"):
                argv = ["setpriv", "--pdeathsig", "KILL", "--", *argv]
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": config["scratch"],
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "PYTHONIOENCODING": "utf-8",
            "BPE_KIT_WORKER": token,
        }
        if self.uid is not None:  # a uid no account has: getpass.getuser() reads these first
            env["USER"] = env["LOGNAME"] = "nobody"
        return argv, env

    def nproc_base(self) -> int:
        """Tasks RLIMIT_NPROC already counts against this sandbox's worker: none for a uid of its
        own, nor in a user namespace of a kernel that counts per namespace; else the user's."""
        if self.uid is not None or (self.userns and userns_counts_tasks()):
            return 0
        return _tasks_of(os.getuid())

    def close(self) -> None:
        def unlock(path: Path) -> None:
            for dirpath, _dirs, _files in os.walk(path):
                try:
                    os.chmod(dirpath, 0o755)
                except OSError:
                    pass

        unlock(self.root)
        shutil.rmtree(self.root, ignore_errors=True)


def _worker_python() -> str:
    """The interpreter a worker runs. Not a venv shim: venvs live in hidden dirs; namespaces
    re-expose the grader's interpreter."""
    return os.path.realpath(sys._base_executable)


def _tasks_of(uid: int) -> int:
    """The tasks (threads included, as RLIMIT_NPROC counts them) the uid runs now."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                pass
    return count


def _fresh_id() -> int:
    """A uid from SANDBOX_IDS that no process runs as now."""
    while True:
        uid = SANDBOX_IDS.start + secrets.randbelow(len(SANDBOX_IDS))
        if _tasks_of(uid) == 0:
            return uid


@functools.lru_cache(maxsize=1)
def userns_counts_tasks() -> bool:
    """Whether this kernel counts RLIMIT_NPROC per user namespace (ucounts, Linux 5.14): then a
    worker in its own user namespace counts only its own tasks, whatever else the user runs."""
    import platform

    try:
        major, minor = (int(x) for x in platform.release().split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (5, 14)
