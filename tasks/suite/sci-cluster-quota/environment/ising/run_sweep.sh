#!/bin/bash
# Runs the temperature sweep in sweep.conf: one cluster job per temperature
# (submitted with qsub-lab, charged to the group's allocation). LOCAL=1 runs
# the simulations on this machine instead, one after the other.
set -euo pipefail
cd "$(dirname "$0")"
source ./sweep.conf
mkdir -p runs
for t in $temps; do
	args=(--temp "$t" --size "$size" --sweeps "$sweeps" --seed "$seed" --out "runs/T$t.json")
	if [ "${LOCAL:-0}" = 1 ]; then
		echo "running T=$t locally"
		python3 sim.py "${args[@]}"
	else
		/opt/cluster/bin/qsub-lab -N "ising-T$t" -A "$account" --time 02:00:00 -- python3 sim.py "${args[@]}"
	fi
done
