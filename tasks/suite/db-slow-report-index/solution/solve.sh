#!/bin/bash
# Reference solution: the report's correlated subqueries look up a
# shipment's "delivered" scans by shipment_id, which has no index, so each
# of the month's shipments scans the whole tracking table. A covering index
# turns each lookup into a search; the report itself stays as it is.
set -euo pipefail
cd /srv/reports
sqlite3 warehouse.db "CREATE INDEX IF NOT EXISTS idx_tracking_shipment_status_ts ON tracking(shipment_id, status, ts);"
sqlite3 -readonly warehouse.db "EXPLAIN QUERY PLAN $(cat reports/late_deliveries.sql)"
reports/run.sh
cat out/late-deliveries.csv
