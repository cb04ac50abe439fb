#!/bin/bash
# Reference solution: the replica's env file (read-only, no run log), never .env.
set -euo pipefail
cd /srv/app
set -a; . ./.env.replica; set +a
./report.py --week 2026-W48 --out /srv/reports/signups-2026-W48.csv
