"""Where the kit grades, and the isolation each student's code gets there.

An engine (the local farm, a CI matrix, Slurm, Kubernetes, Gradescope, a container, a student's
machine) gives the grader one of a few conditions: root or an ordinary user, allowed namespaces or
not. The isolation follows from the rule the sandbox applies (grader/sandbox/isolation.py), so it
is computed here, never written down twice. README's "Scaling out" table is rendered from this
(`python -m grader.release.engines` writes it, `--check` compares);
tests/kit/grader/release/test_engines.py checks each engine's conditions against its template and
grades under each condition for real.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from assignment.build import replace_block

from ..errors import RubricError
from ..paths import README
from ..sandbox.isolation import Isolation, level


@dataclass(frozen=True)
class Condition:
    """What an engine gives the grader: who runs it, and whether it may make namespaces."""

    key: str  # the name the tests that grade under it use
    root: bool
    namespaces: bool

    @property
    def isolation(self) -> Isolation:
        # Root without namespaces drops to uid 65534: every engine's image or system has an
        # interpreter that uid may run (the Gradescope setup and the Containerfile see to it).
        return level(root=self.root, namespaces=self.namespaces, uid_drop=True)


ROOT = Condition("root", root=True, namespaces=True)
# Root without CAP_SYS_ADMIN, as in a container that is not privileged: no namespaces.
ROOT_CONFINED = Condition("root-confined", root=True, namespaces=False)
USER = Condition("user", root=False, namespaces=True)
# A kernel setting, macOS or WSL1: no user namespaces for an ordinary user.
USER_REFUSED = Condition("user-refused", root=False, namespaces=False)
CONDITIONS = (ROOT, ROOT_CONFINED, USER, USER_REFUSED)


@dataclass(frozen=True)
class Case:
    when: str  # where this condition holds, in the README's words
    condition: Condition


@dataclass(frozen=True)
class Engine:
    key: str  # the name tests/kit/grader/release/test_engines.py checks it by
    name: str
    how: str  # the template or command, in the README's words
    cases: tuple[Case, ...]
    farm: bool = True  # grades through the farm, which refuses `process-group` unless told

    def says(self, case: Case) -> str:
        """What the README says a student gets in `case`."""
        got = case.condition.isolation
        if got == Isolation.PROCESS_GROUP:
            if self.farm:
                return "the farm refuses, naming why (`process-group` with `--allow-weak-isolation`)"
            return "`process-group`, and the report says so, naming why"
        return f"`{got}`"


ENGINES = (
    Engine(
        "farm",
        "This machine",
        "`make class` (`bpe-kit farm grade`)",
        (
            Case("as root", ROOT),
            Case("as an ordinary user", USER),
            Case("where user namespaces are refused", USER_REFUSED),
        ),
    ),
    Engine(
        "github-actions",
        "GitHub Actions",
        "`github-actions.yml`: a job matrix, one shard per job",
        (Case("the farm runs with `sudo` on the runner's VM", ROOT),),
    ),
    Engine(
        "gitlab",
        "GitLab CI",
        "`gitlab-ci.yml`: `parallel:` shards",
        (
            Case("root in the job's container (a Docker runner)", ROOT_CONFINED),
            Case("a privileged runner", ROOT),
        ),
    ),
    Engine(
        "slurm",
        "Slurm",
        "`slurm-array.sh`: a job array",
        (
            Case("the tasks run as you", USER),
            Case("on nodes that refuse user namespaces", USER_REFUSED),
        ),
    ),
    Engine(
        "kubernetes",
        "Kubernetes",
        "`kubernetes-job.yaml`: an Indexed Job of root pods",
        (
            Case("a root pod without extra privileges", ROOT_CONFINED),
            Case("`privileged: true`", ROOT),
        ),
    ),
    Engine(
        "kubernetes-rootless",
        "Kubernetes, rootless",
        "`kubernetes-job-rootless.yaml`: the same Job as uid 1000, `hostUsers: false`",
        (
            Case("a pod allowed user namespaces", USER),
            Case("a pod refused them", USER_REFUSED),
        ),
    ),
    Engine(
        "gradescope",
        "Gradescope",
        "`dist/autograder.zip`: `run_autograder`, as root, in Gradescope's container",
        (
            Case("a container that may make namespaces", ROOT),
            Case("one that may not", ROOT_CONFINED),
        ),
        farm=False,
    ),
    Engine(
        "container",
        "Podman or Docker",
        "the kit's image (`Containerfile`), rootless or not",
        (
            Case("root in the container, the image's default", ROOT_CONFINED),
            Case("`--privileged`", ROOT),
        ),
    ),
    Engine(
        "classroom",
        "GitHub Classroom",
        "`classroom.yml`: `make grade` on each push, public tests",
        (
            Case("the runner's user, allowed user namespaces", USER),
            Case("a runner that refuses them", USER_REFUSED),
        ),
        farm=False,
    ),
    Engine(
        "student",
        "A student's machine",
        "`make grade`, as the student",
        (
            Case("Linux", USER),
            Case("macOS, WSL1, or a kernel that refuses user namespaces", USER_REFUSED),
        ),
        farm=False,
    ),
)


def render() -> str:
    """The README's table: one row per engine, each case with the isolation it gives."""
    lines = ["| where | how | each student's code gets |", "| --- | --- | --- |"]
    for engine in ENGINES:
        got = "; ".join(f"{case.when}: {engine.says(case)}" for case in engine.cases)
        lines.append(f"| {engine.name} | {engine.how} | {got} |")
    return "\n".join(lines)


BEGIN = "<!-- engines:begin -->"
END = "<!-- engines:end -->"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader.release.engines", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--check", action="store_true", help="only check that README's table is current")
    args = parser.parse_args(argv)
    try:
        text = README.read_text(encoding="utf-8")
        updated = replace_block(text, render(), README, BEGIN, END)
    except (OSError, RubricError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if text == updated:
        print(f"{README.name}: the engines table is current")
        return 0
    if args.check:
        print(
            f"error: {README.name}'s engines table is out of date: run `python -m grader.release.engines`",
            file=sys.stderr,
        )
        return 1
    README.write_text(updated, encoding="utf-8")
    print(f"{README.name}: engines table rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
