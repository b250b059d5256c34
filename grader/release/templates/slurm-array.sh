#!/usr/bin/env bash
# Grade a whole class on a Slurm cluster: a job array runs one task per shard, and the task's place
# in the array gives the farm's --shard K/N. From the kit's folder on a shared filesystem, after
# `make venv` on a login node:
#   jid=$(sbatch --parsable grader/release/templates/slurm-array.sh)
#   sbatch --dependency=afterany:"$jid" --wrap '.venv/bin/python -m grader.farm merge out/shard-* --out class'
# The merge exits 1 (and says who) if a student is missing or was graded twice. Change the shard
# count in --array only; SUBMISSIONS and OUT may be set in the environment (sbatch passes it on).
#
# Isolation: Slurm runs the tasks as you, without root, so the grader can neither drop students'
# code to another uid nor give it namespaces ("process-group" in results.json). That is the only
# option here, so the farm is told so with --allow-weak-isolation: students' code runs as you and
# can read and change what you can on the shared filesystem (the kit, the other submissions, the
# outputs). Grade from an account that can reach nothing else, and use Kubernetes (root pods) or a
# root machine (`sudo make class`) where stronger isolation matters.
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

exec .venv/bin/python -m grader.farm grade "$SUBMISSIONS" \
  --shard "$K/$N" --jobs "${SLURM_CPUS_PER_TASK:-2}" --out "$OUT/shard-$K" \
  --allow-weak-isolation
