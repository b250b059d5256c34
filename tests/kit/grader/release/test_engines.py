"""README's table of where the kit grades (grader/release/engines.py) is true.

Each engine's isolation is stated as the conditions it gives the grader (root or an ordinary
user, allowed namespaces or not), turned into a level by the sandbox's own rule. So:
- the README's table is the one rendered from grader/release/engines.py;
- each engine's template gives the grader the conditions it is said to (read from the template);
- under each condition, recreated here, a real grade records the isolation the table says, and
  the farm refuses or grades as it says: root (this machine), root without CAP_SYS_ADMIN (as in a
  container that is not privileged: `setpriv` drops it from the bounding set), an ordinary user,
  and an ordinary user whose kernel refuses user namespaces (a user namespace of the test's own
  whose `user.max_user_namespaces` is 0, as on a kernel set so; macOS and WSL1 refuse them too).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import jail
import pytest
from instructor_fakes import make_submission, write_suite
from ruamel.yaml import YAML
from sandboxed import PYTHON, ordinary_user

from grader.paths import KIT_ROOT
from grader.release import engines
from grader.release.engines import ROOT, ROOT_CONFINED, USER, USER_REFUSED
from grader.sandbox.isolation import Isolation

KIT = KIT_ROOT
TEMPLATES = KIT / "grader/release/templates"
# Run as an ordinary user, it makes a user namespace of its own where no other may be made, then
# runs the command as that same user: a kernel that refuses user namespaces, without root.
NO_USERNS = KIT / "tests/kit/no_userns.py"


def _yaml(name: str):
    return YAML(typ="safe", pure=True).load((TEMPLATES / name).read_text())


def _text(name: str) -> str:
    return (TEMPLATES / name).read_text()


def test_the_readme_table_is_the_one_rendered_from_the_engines():
    assert engines.main(["--check"]) == 0, "README.md is out of date: run `python -m grader.release.engines`"


# --- each engine's template gives the grader the conditions the table says ---------------------


def _farm_step(steps: list[dict]) -> str:
    return next(s["run"] for s in steps if "grader.farm" in s.get("run", ""))


def _github_actions() -> tuple:
    wf = _yaml("github-actions.yml")
    grade = wf["jobs"]["grade"]
    # A hosted runner is a VM of its own, where root may make namespaces.
    assert grade["runs-on"].startswith("ubuntu-") and _farm_step(grade["steps"]).startswith("sudo ")
    return (ROOT,)


def _gitlab() -> tuple:
    ci = _yaml("gitlab-ci.yml")
    # The job's script runs as the image's user (root in python:*-slim), in a container that is not
    # privileged unless the runner is; nothing switches user.
    assert ci["default"]["image"].startswith("python:") and "privileged" not in json.dumps(ci)
    script = " ".join(ci["grade"]["script"])
    assert "sudo" not in script and "--allow-weak-isolation" not in script
    assert "privileged runner" in _text("gitlab-ci.yml")
    return (ROOT_CONFINED, ROOT)


def _slurm() -> tuple:
    text = _text("slurm-array.sh")
    run = [ln for ln in text.splitlines() if not ln.startswith("#")]
    assert not any(w in ln for ln in run for w in ("sudo", "--allow-weak-isolation", "unshare", "--uid"))
    return (USER, USER_REFUSED)


def _pod(name: str) -> tuple[dict, dict]:
    spec = _yaml(name)["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    return spec, container["securityContext"]


def _kubernetes() -> tuple:
    pod, ctx = _pod("kubernetes-job.yaml")
    assert ctx["runAsUser"] == 0 and not ctx.get("privileged") and "hostUsers" not in pod
    assert "`privileged: true`" in _text("kubernetes-job.yaml")
    return (ROOT_CONFINED, ROOT)


def _kubernetes_rootless() -> tuple:
    pod, ctx = _pod("kubernetes-job-rootless.yaml")
    assert pod["hostUsers"] is False and ctx["runAsNonRoot"] is True and ctx["runAsUser"] != 0
    # The runtime's default profiles refuse unshare and mount: these may not stand in the way.
    assert ctx["seccompProfile"]["type"] == ctx["appArmorProfile"]["type"] == "Unconfined"
    return (USER, USER_REFUSED)


def _gradescope() -> tuple:
    setup, run = _text("setup.sh"), _text("run_autograder")
    assert "Gradescope runs this once, as root" in setup and "-m grader.gradescope" in run
    assert not any(w in run for w in ("sudo", "runuser", "setpriv", "su "))
    return (ROOT, ROOT_CONFINED)


def _container() -> tuple:
    lines = [ln for ln in _text("Containerfile").splitlines() if ln and not ln.startswith("#")]
    assert not any(ln.startswith("USER ") for ln in lines), "the image runs as root by default"
    return (ROOT_CONFINED, ROOT)


def _classroom() -> tuple:
    steps = _yaml("classroom.yml")["jobs"]["autograding"]["steps"]
    grade = next(s["run"] for s in steps if "make grade" in s.get("run", ""))
    assert "sudo" not in grade, "as the runner's user"
    return (USER, USER_REFUSED)


def _student() -> tuple:
    recipe = _text("student.Makefile").split("\ngrade:", 1)[1].split("\n\n", 1)[0]
    assert "-m grader grade" in recipe and "sudo" not in recipe
    return (USER, USER_REFUSED)


def _farm() -> tuple:
    """No template: the farm runs as root or as an ordinary user, anywhere: graded so as root in
    test_farm.py, as an ordinary user in test_catalogue_farm.py, and refused below."""
    return (ROOT, USER, USER_REFUSED)


TEMPLATE_CHECKS = {
    "farm": _farm,
    "github-actions": _github_actions,
    "gitlab": _gitlab,
    "slurm": _slurm,
    "kubernetes": _kubernetes,
    "kubernetes-rootless": _kubernetes_rootless,
    "gradescope": _gradescope,
    "container": _container,
    "classroom": _classroom,
    "student": _student,
}


@pytest.mark.parametrize("engine", engines.ENGINES, ids=lambda e: e.key)
def test_each_engines_template_gives_the_conditions_the_table_says(engine):
    assert tuple(case.condition for case in engine.cases) == TEMPLATE_CHECKS[engine.key]()


def test_every_engine_is_checked():
    assert sorted(TEMPLATE_CHECKS) == sorted(e.key for e in engines.ENGINES)


# --- under each condition, a real grade gets what the table says ------------------------------


def _graded_as(condition, argv: list[str], work: Path) -> tuple[int, str]:
    """(exit status, stdout + stderr) of `argv` run from the kit under `condition`."""
    if condition.root and os.geteuid() != 0:
        pytest.skip("needs root: the condition is root's")
    if condition is ROOT_CONFINED:
        if shutil.which("setpriv") is None:
            pytest.skip("no setpriv (util-linux) to drop CAP_SYS_ADMIN")
        argv = ["setpriv", "--bounding-set", "-sys_admin", "--", *argv]
    if condition is USER_REFUSED:
        argv = [PYTHON, str(NO_USERNS), *argv]
    user = None if condition.root else ordinary_user()
    if os.geteuid() == 0:  # the user reaches the kit and its Python through the jail
        jailed = work / f"jail-{uuid.uuid4().hex[:8]}"  # the jail's own files, one folder a run
        done = jail.run_in_jail([argv], jailed, reach=[str(work)], user=user)
        return done.returncode, done.stdout + done.stderr
    done = subprocess.run(argv, cwd=KIT, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout + done.stderr


def _work(tmp_path: Path, condition) -> Path:
    work = tmp_path / "work"
    if os.geteuid() == 0 and not condition.root:
        jail.make_owned(work, ordinary_user())
        work.chmod(0o755)
    else:
        work.mkdir()
    return work


@pytest.mark.slow
@pytest.mark.parametrize("condition", engines.CONDITIONS, ids=lambda c: c.key)
def test_a_grade_under_each_condition_records_the_level_the_table_says(tmp_path, condition):
    work = _work(tmp_path, condition)
    out = work / "out"
    argv = [
        PYTHON,
        "-m",
        "grader",
        "grade",
        str(KIT / "solution"),
        "--out",
        str(out),
        "--tests",
        "test_merge",
    ]
    code, said = _graded_as(condition, argv, work)
    assert code == 0, said[-3000:]
    results = json.loads((out / "results.json").read_text())
    assert results["extra_data"]["isolation"] == condition.isolation
    assert results["score"] > 0 and all(t["score"] == t["max_score"] for t in results["tests"])
    said = " ".join(said.split())  # the report wraps its lines
    assert f"(isolation: {condition.isolation})" in said
    if condition is USER_REFUSED:  # where user namespaces are refused, the report says why
        assert "Your code ran without namespaces: this kernel refuses ordinary users a user namespace" in said
        assert "`sysctl user.max_user_namespaces=15000` as root allows it" in said


@pytest.mark.slow
def test_the_farm_refuses_a_class_where_user_namespaces_are_refused_unless_told(tmp_path):
    work = _work(tmp_path, USER_REFUSED)
    tests, rubric = write_suite(work / "suite")
    make_submission(work / "class", "ann", points=["1.1"])
    farm = [PYTHON, "-m", "grader.farm", "grade", str(work / "class"), "--out", str(work / "out")]
    farm += ["--tests-dir", str(tests), "--rubric", str(rubric), "--budget", "300"]
    code, said = _graded_as(USER_REFUSED, farm, work)
    assert code == 2 and "max_user_namespaces" in said and "--allow-weak-isolation" in said, said
    assert not (work / "out" / "gradebook.csv").exists()
    code, said = _graded_as(USER_REFUSED, [*farm, "--allow-weak-isolation"], work)
    assert code == 0, said[-3000:]
    rows = (work / "out" / "gradebook.csv").read_text().splitlines()
    header, (ann,) = rows[0].split(","), [r.split(",") for r in rows[1:]]
    assert ann[header.index("isolation")] == Isolation.PROCESS_GROUP
