#!/bin/bash
# Reference run for the paper: ten orbits.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p results
./orbit.py --periods 10 --dt 0.001 --out results/orbit.csv
