#!/bin/sh
# Nightly (cron, 02:30): the late-deliveries report for the carrier review.
# The job slot is 10 seconds; longer runs are killed.
set -eu
cd "$(dirname "$0")/.."
timeout 10 sqlite3 -readonly -header -csv warehouse.db < reports/late_deliveries.sql > out/late-deliveries.csv
echo "report written: out/late-deliveries.csv"
