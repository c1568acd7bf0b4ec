#!/bin/bash
# One shard of a tinkertoy sweep per Slurm array task (see docs/cluster.md). The shard count is
# given explicitly, so resubmitting some tasks recomputes exactly those shards:
#   sbatch --array=1-8 scripts/slurm_sweep.sh experiments/chain.yaml 8
#   sbatch --array=3,5 scripts/slurm_sweep.sh experiments/chain.yaml 8   # two cancelled tasks again
# Arguments: CONFIG SHARDS [REPORTS] [further `tinkertoy run` options...]. The binary is
# $TINKERTOY (default target/release/tinkertoy, relative to the submission directory).
# When every task has finished:
#   target/release/tinkertoy merge reports/chain.shard-*-of-8
#SBATCH --job-name=tinkertoy
#SBATCH --cpus-per-task=2
#SBATCH --time=02:00:00
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=tinkertoy-%A-%a.log
set -euo pipefail
usage="usage: sbatch --array=1-N scripts/slurm_sweep.sh CONFIG N [REPORTS] [run options...]"
config="${1:?$usage}"
shards="${2:?$usage}"
reports="${3:-reports}"
shift $(( $# < 3 ? $# : 3 ))
: "${SLURM_ARRAY_TASK_ID:?run as a Slurm array job: $usage}"
if ! [[ "$shards" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: the shard count N must be a positive whole number, got '$shards'; $usage" >&2
  exit 2
fi
if (( SLURM_ARRAY_TASK_ID < 1 || SLURM_ARRAY_TASK_ID > shards )); then
  echo "error: array task $SLURM_ARRAY_TASK_ID is not a shard of 1..$shards; $usage" >&2
  exit 2
fi
cd "${SLURM_SUBMIT_DIR:-.}"
# --resume: a task requeued after preemption reuses the cells it finished.
exec "${TINKERTOY:-target/release/tinkertoy}" run "$config" \
  --shard "${SLURM_ARRAY_TASK_ID}/${shards}" \
  --threads "${SLURM_CPUS_PER_TASK:-1}" \
  --reports "$reports" \
  --resume "$@"
