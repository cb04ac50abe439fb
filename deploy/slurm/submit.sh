#!/usr/bin/env bash
# submit.sh N: submit an authbench bench as a Slurm array of N shards and
# the merge step after it (afterany: a failed shard still leaves the
# others merged; resume it with `sbatch --array=I authbench-bench.sbatch`
# and submit the merge again). The AUTHBENCH_* settings of
# authbench-bench.sbatch come from the environment. Extra arguments go to
# both sbatch calls (--partition, --time, --account, ...).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${1:?usage: submit.sh N [SBATCH_ARGS...]}
shift
array=$(sbatch --parsable --array="0-$((n - 1))" --export=ALL,AUTHBENCH_SHARDS="$n" "$@" "$here/authbench-bench.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterany:$array" --export=ALL "$@" "$here/authbench-merge.sbatch")
echo "array job $array ($n shards), merge job ${merge%%;*}"
