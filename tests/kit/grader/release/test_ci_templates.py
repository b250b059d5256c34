"""The CI templates parse, shard the class consistently, and call farm commands that exist.

YAML is read with ruamel.yaml (YAML 1.2, as GitHub and GitLab read it: `on:` stays a key, and a
duplicate key is an error). .ci/run also lints the GitHub workflows with actionlint.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
import subprocess
import sys

import pytest
from ruamel.yaml import YAML

from grader.farm_cli import build_parser as farm_parser
from grader.paths import KIT_ROOT

TEMPLATES = KIT_ROOT / "grader/release/templates"


def load(name):
    return YAML(typ="safe", pure=True).load((TEMPLATES / name).read_text())


def farm_args(command: str, **subst):
    """Parse the `grader.farm ...` part of a shell command with the farm's own argument parser."""
    for k, v in subst.items():
        command = command.replace(k, v)
    words = shlex.split(command)
    return farm_parser().parse_args(words[words.index("grader.farm") + 1 :])


def test_github_actions_grades_every_shard_then_merges_them():
    wf = load("github-actions.yml")
    grade, merge = wf["jobs"]["grade"], wf["jobs"]["merge"]
    shards = grade["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, len(shards) + 1)) and len(shards) >= 2
    assert grade["strategy"]["fail-fast"] is False
    run = next(s["run"] for s in grade["steps"] if "grader.farm" in s.get("run", ""))
    for k in shards:
        args = farm_args(
            run,
            **{
                "${{ matrix.shard }}": str(k),
                "${{ strategy.job-total }}": str(len(shards)),
                "$SUBMISSIONS": "subs",
            },
        )
        assert str(args.submissions) == "subs"
        assert (args.cmd, args.shard, str(args.out)) == ("grade", f"{k}/{len(shards)}", f"out/shard-{k}")
    step = next(s for s in grade["steps"] if "grader.farm" in s.get("run", ""))
    assert step["run"].startswith("sudo ")  # as root: "namespaces+uid", as README says
    assert step["env"]["SUBMISSIONS"] == "${{ inputs.submissions }}"
    upload = next(s for s in grade["steps"] if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["with"]["name"] == "shard-${{ matrix.shard }}" and upload["if"] == "always()"
    assert merge["needs"] == "grade" and merge["if"] == "always()"
    download = next(s for s in merge["steps"] if s.get("uses", "").startswith("actions/download-artifact"))
    assert download["with"]["pattern"] == "shard-*"
    run = next(s["run"] for s in merge["steps"] if "grader.farm" in s.get("run", ""))
    args = farm_args(run.replace("shards/shard-*", "shards/shard-1 shards/shard-2"))
    assert args.cmd == "merge" and [str(p) for p in args.inputs] == ["shards/shard-1", "shards/shard-2"]


@pytest.mark.parametrize("name", ["github-actions.yml", "classroom.yml"])
def test_no_workflow_pastes_an_input_or_event_text_into_a_script(name):
    """`${{ }}` is pasted into the script before the shell reads it: text a person chose (an input,
    a branch name, a commit message) must reach a script through `env:` instead."""
    for job in load(name)["jobs"].values():
        for step in job["steps"]:
            assert not re.search(r"\$\{\{\s*(inputs|github\.event|github\.head_ref)", step.get("run", "")), (
                step
            )


def test_gitlab_runs_parallel_shards_and_a_merge_that_needs_them():
    ci = load("gitlab-ci.yml")
    assert ci["stages"] == ["grade", "merge"]
    n = ci["grade"]["parallel"]
    assert isinstance(n, int) and n >= 2
    cmd = next(c for c in ci["grade"]["script"] if "grader.farm" in c)
    args = farm_args(cmd, **{"$CI_NODE_INDEX": "3", "$CI_NODE_TOTAL": str(n), "$SUBMISSIONS": "subs"})
    assert args.shard == f"3/{n}" and str(args.out) == "out/shard-3"
    assert "out/" in ci["grade"]["artifacts"]["paths"] and ci["grade"]["artifacts"]["when"] == "always"
    assert ci["merge"]["needs"] == [{"job": "grade", "artifacts": True}]
    assert farm_args(next(c for c in ci["merge"]["script"] if "grader.farm" in c)).cmd == "merge"


def test_classroom_workflow_reports_the_graded_points(tmp_path):
    wf = load("classroom.yml")
    steps = wf["jobs"]["autograding"]["steps"]
    grade = next(s for s in steps if s.get("id"))
    reporter = next(s for s in steps if "autograding-grading-reporter" in s.get("uses", ""))
    assert reporter["with"]["runners"] == grade["id"]
    assert reporter["env"] == {
        f"{grade['id'].upper()}_RESULTS": f"${{{{ steps.{grade['id']}.outputs.result }}}}"
    }
    assert "make grade OUT=results" in grade["run"]
    script = re.search(r"<<'PY'[^\n]*\n(.*?)\nPY\n", grade["run"], re.S).group(1)
    (tmp_path / "results").mkdir()
    (tmp_path / "results/results.json").write_text(
        json.dumps(
            {
                "score": 7,
                "tests": [
                    {"number": "1.1", "name": "merge", "score": 5, "max_score": 5, "output": ""},
                    {"number": "1.2", "name": "train", "score": 2, "max_score": 10, "output": "wrong merge"},
                ],
            }
        )
    )
    r = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    report = json.loads(base64.b64decode(r.stdout.strip().removeprefix("result=")))
    assert report["max_score"] == 15 and report["status"] == "fail"
    assert [(t["name"], t["score"], t["status"]) for t in report["tests"]] == [
        ("1.1 merge", 5, "pass"),
        ("1.2 train", 2, "fail"),
    ]
