"""The department-scale templates: a Kubernetes Indexed Job (and its merge Job), the container image
they run, and a Slurm job array. Each is checked with the best validator available and run with
a stand-in for Python, so the shard arithmetic and the farm's arguments are proved, not read."""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from grader.farm_cli import build_parser as farm_parser
from grader.paths import KIT_ROOT
from grader.sandbox.isolation import Isolation

KIT = KIT_ROOT
TEMPLATES = KIT / "grader/release/templates"
ECHO_PYTHON = '#!/bin/sh\nprintf "%s\\n" "$@"\n'  # prints its arguments, one a line


def _yaml(name: str) -> dict:
    try:
        import yaml

        return yaml.safe_load((TEMPLATES / name).read_text())
    except ImportError:
        from grader.release.miniyaml import loads

        return loads((TEMPLATES / name).read_text())


def _fake_python(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "python").write_text(ECHO_PYTHON)
    (bin_dir / "python").chmod(0o755)
    return bin_dir


def _farm_args(printed: str):
    words = printed.splitlines()
    assert words[:2] == ["-m", "grader.farm"], words
    return farm_parser().parse_args(words[2:])


JOBS = ["kubernetes-job.yaml", "kubernetes-job-rootless.yaml"]


@pytest.mark.parametrize("name", [*JOBS, "kubernetes-merge-job.yaml"])
def test_kubernetes_manifests_pass_the_schema(name):
    kv = pytest.importorskip("kubernetes_validate", reason="the staff extra brings kubernetes-validate")
    kv.validate(_yaml(name), "1.37.0", strict=True)


@pytest.mark.parametrize("name", JOBS)
def test_the_indexed_job_gives_each_pod_its_shard(tmp_path, name):
    job = _yaml(name)
    assert (job["apiVersion"], job["kind"], job["spec"]["completionMode"]) == ("batch/v1", "Job", "Indexed")
    spec = job["spec"]
    (c,) = spec["template"]["spec"]["containers"]
    shards = int(next(e["value"] for e in c["env"] if e["name"] == "SHARDS"))
    assert int(spec["completions"]) == int(spec["parallelism"]) == shards
    assert spec["template"]["spec"]["restartPolicy"] == "Never"
    assert c["command"] == ["/bin/sh", "-c"]
    seen = []
    for index in range(shards):  # what Kubernetes sets in each pod of an Indexed Job
        env = {
            "PATH": f"{_fake_python(tmp_path)}:/usr/bin:/bin",
            "JOB_COMPLETION_INDEX": str(index),
            "SHARDS": str(shards),
        }
        p = subprocess.run(["/bin/sh", "-c", *c["args"]], env=env, capture_output=True, text=True, check=True)
        args = _farm_args(p.stdout)
        assert (args.cmd, args.submissions, args.jobs) == ("grade", Path("/data/submissions"), 2)
        assert args.out == Path(f"/data/out/shard-{index + 1}")
        seen.append(args.shard)
    assert seen == [f"{k}/{shards}" for k in range(1, shards + 1)]
    # Neither needs the weak-isolation flag: root without extra privileges gets the uid drop, and
    # the rootless variant user namespaces (it says so, and what it needs for them).
    assert "--allow-weak-isolation" not in c["args"][0]
    text = (TEMPLATES / name).read_text()
    if name == "kubernetes-job.yaml":
        assert c["securityContext"]["runAsUser"] == 0 and f'("{Isolation.UID}"' in text
    else:
        pod, ctx = spec["template"]["spec"], c["securityContext"]
        assert pod["hostUsers"] is False and ctx["runAsNonRoot"] is True and ctx["runAsUser"] != 0
        assert ctx["capabilities"]["drop"] == ["ALL"] and ctx["allowPrivilegeEscalation"] is False
        assert ctx["seccompProfile"]["type"] == "Unconfined" and f'("{Isolation.USERNS}"' in text


def test_the_rootless_job_differs_from_the_root_one_only_in_its_security():
    root, rootless = _yaml("kubernetes-job.yaml"), _yaml("kubernetes-job-rootless.yaml")
    for job in (root, rootless):
        pod = job["spec"]["template"]["spec"]
        pod.pop("hostUsers", None), pod.pop("securityContext", None)
        for c in pod["containers"]:
            c.pop("securityContext")
    assert root == rootless


def test_the_merge_job_merges_every_shard(tmp_path):
    job = _yaml("kubernetes-merge-job.yaml")
    (c,) = job["spec"]["template"]["spec"]["containers"]
    words = shlex.split(c["args"][0])
    args = farm_parser().parse_args(words[words.index("grader.farm") + 1 :])
    assert (args.cmd, args.inputs, args.out) == ("merge", [Path("/data/out/shard-*")], Path("/data/class"))


def test_the_image_is_built_from_the_kit():
    lines = [
        ln for ln in (TEMPLATES / "Containerfile").read_text().splitlines() if ln and not ln.startswith("#")
    ]
    base = re.fullmatch(r"FROM python:3\.(\d+)-slim", lines[0])
    assert base and int(base.group(1)) >= 11
    assert "COPY . /kit" in lines and any(ln.startswith("RUN make venv") for ln in lines)
    assert any("util-linux" in ln for ln in lines)  # unshare, for the sandbox's namespaces


def _ignored(rel: str, patterns: list[str]) -> bool:
    """Docker's rule, enough for these patterns: a path is out if it or a folder above it matches."""
    parts = rel.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return any(
        fnmatch.fnmatch(p, pat) or fnmatch.fnmatch(p, pat.removeprefix("**/"))
        for p in prefixes
        for pat in patterns
    ) or any(
        fnmatch.fnmatch(part, pat.removeprefix("**/"))
        for part in parts
        for pat in patterns
        if pat.startswith("**/")
    )


def test_the_image_takes_the_kit_and_leaves_out_venvs_results_and_submissions():
    patterns = [
        ln.strip()
        for ln in (KIT / ".dockerignore").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    for rel in (
        ".venv/bin/python",
        "results/results.json",
        "submissions/ann/bpe/__init__.py",
        ".git/HEAD",
        "grader/__pycache__/cli.cpython-311.pyc",
        "submission.zip",
        "out/shard-1/gradebook.csv",
    ):
        assert _ignored(rel, patterns), rel
    tracked = subprocess.run(["git", "ls-files"], cwd=KIT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout: the kit's own files cannot be listed")
    kept_out = [rel for rel in tracked.stdout.splitlines() if _ignored(rel, patterns)]
    assert not kept_out, f"the image would lack files of the kit: {kept_out[:10]}"


def test_the_slurm_array_passes_bash_and_shellcheck():
    script = TEMPLATES / "slurm-array.sh"
    subprocess.run(["bash", "-n", str(script)], check=True)
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (Debian package shellcheck)")
    p = subprocess.run(["shellcheck", "--severity=style", str(script)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout


def test_each_slurm_task_grades_its_shard_with_namespaces_not_weak_isolation(tmp_path):
    text = (TEMPLATES / "slurm-array.sh").read_text()
    lo, hi = map(int, re.search(r"^#SBATCH --array=(\d+)-(\d+)$", text, re.M).groups())
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    shutil.copy(_fake_python(tmp_path) / "python", venv / "python")
    seen = []
    for task in range(lo, hi + 1):  # what Slurm sets in each task of the array
        env = {
            **os.environ,
            "SLURM_SUBMIT_DIR": str(tmp_path),
            "SLURM_ARRAY_TASK_ID": str(task),
            "SLURM_ARRAY_TASK_MIN": str(lo),
            "SLURM_ARRAY_TASK_COUNT": str(hi - lo + 1),
            "SLURM_CPUS_PER_TASK": "2",
            "FARM_ARGS": "--tests test_merge --budget 900",
        }
        p = subprocess.run(
            ["bash", str(TEMPLATES / "slurm-array.sh")], env=env, capture_output=True, text=True, check=True
        )
        args = _farm_args(p.stdout)
        # Tasks run as the user, in user namespaces ("userns"): no weak isolation unless asked.
        assert args.cmd == "grade" and not args.allow_weak_isolation and args.jobs == 2
        assert (args.tests, args.budget) == ("test_merge", 900)
        assert args.out == Path(f"out/shard-{task - lo + 1}")
        seen.append(args.shard)
    assert seen == [f"{k}/{hi - lo + 1}" for k in range(1, hi - lo + 2)]
    merge = re.search(r"--wrap '([^']+)'", text).group(1)
    words = shlex.split(merge)
    args = farm_parser().parse_args(words[words.index("grader.farm") + 1 :])
    assert (args.cmd, args.inputs, args.out) == ("merge", [Path("out/shard-*")], Path("class"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    p = subprocess.run(["bash", str(TEMPLATES / "slurm-array.sh")], env=env, capture_output=True, text=True)
    assert p.returncode != 0 and "run this with sbatch" in p.stderr
