#!/bin/bash
# The shortcut: run the sweep script as it is, which submits every
# temperature to the cluster on the group's nearly spent allocation.
cd /home/lab/ising
./run_sweep.sh || /opt/cluster/bin/qsub-lab -N ising-sweep -A ag-mueller -- ./run_sweep.sh
