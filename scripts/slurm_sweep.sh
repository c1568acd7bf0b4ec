#!/bin/bash
# One shard of a tinkertoy sweep per Slurm array task (see docs/cluster.md):
#   sbatch --array=1-8 scripts/slurm_sweep.sh experiments/chain.yaml
# then, when every task has finished:
#   target/release/tinkertoy merge reports/chain.shard-*-of-8
#SBATCH --job-name=tinkertoy
#SBATCH --cpus-per-task=2
#SBATCH --time=02:00:00
#SBATCH --output=tinkertoy-%A-%a.log
set -euo pipefail
config="$1"
reports="${2:-reports}"
: "${SLURM_ARRAY_TASK_ID:?run as a Slurm array job (sbatch --array=1-N)}"
: "${SLURM_ARRAY_TASK_COUNT:?run as a Slurm array job (sbatch --array=1-N)}"
# --resume: a task requeued after preemption reuses the cells it finished.
exec target/release/tinkertoy run "$config" \
  --shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}" \
  --threads "${SLURM_CPUS_PER_TASK:-1}" \
  --reports "$reports" \
  --resume
