#!/usr/bin/env bash
# Grade a whole class on a Slurm cluster: a job array runs one task per shard, and the task's place
# in the array gives the farm's --shard K/N. From the kit's folder on a shared filesystem, after
# `make venv` on a login node:
#   jid=$(sbatch --parsable grader/release/templates/slurm-array.sh)
#   sbatch --dependency=afterany:"$jid" --wrap '.venv/bin/python -m grader.farm merge out/shard-* --out class'
# The merge exits 1 (and says who) if a student is missing or was graded twice. Change the shard
# count in --array only; SUBMISSIONS and OUT may be set in the environment (sbatch passes it on).
#
# FARM_ARGS adds arguments to the farm's (e.g. FARM_ARGS="--tests test_part1"), split at spaces.
#
# Isolation: Slurm runs the tasks as you, without root. The grader then gives each student's code
# user, PID, mount, network and IPC namespaces of its own ("userns" in results.json and in the
# gradebook's isolation column): it sees a read-only copy of the submission and a scratch folder,
# the system's folders (/usr, /etc, /opt...), and a /dev of only null, zero, full, random and
# urandom; every other top-level folder (the kit, the outputs, the other submissions, /home, the
# shared filesystems), /run, /proc and the shared temp folders are empty to it, and it cannot
# signal the grader. It keeps your supplementary groups (a user namespace cannot drop them): the
# farm names them, and refuses if one opens the host (disk, docker, lxd, kvm...); as it does, naming the setting that
# allows namespaces (for example `sysctl user.max_user_namespaces=15000`), where the nodes' kernel
# refuses ordinary users a user namespace. Only then, and knowing that students' code could then
# reach what you (or your groups) can, add --allow-weak-isolation to FARM_ARGS.
#SBATCH --job-name=bpe-grade
#SBATCH --array=1-8
#SBATCH --cpus-per-task=2
#SBATCH --mem=8G
#SBATCH --time=06:00:00
#SBATCH --output=slurm-bpe-grade-%A_%a.out
set -euo pipefail

cd "${SLURM_SUBMIT_DIR:-.}"
SUBMISSIONS="${SUBMISSIONS:-submissions}"
OUT="${OUT:-out}"
N="${SLURM_ARRAY_TASK_COUNT:?run this with sbatch: it is a job array}"
K=$((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1))
read -r -a EXTRA <<<"${FARM_ARGS:-}"

exec .venv/bin/python -m grader.farm grade "$SUBMISSIONS" \
  --shard "$K/$N" --jobs "${SLURM_CPUS_PER_TASK:-2}" --out "$OUT/shard-$K" "${EXTRA[@]}"
