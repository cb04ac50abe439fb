#!/bin/bash
set -euo pipefail
cd /srv/warehouse
in=incoming/shipments-2026-11-30.csv
rej=${in%.csv}.rejects.csv
# strip the portal's CRLF line ends, then stage and classify in SQL
tr -d '\r' < "$in" > /tmp/shipments.csv
sqlite3 warehouse.db <<SQL
PRAGMA foreign_keys = ON;
CREATE TEMP TABLE staged (shipment_id TEXT, carrier TEXT, weight_kg TEXT, shipped_on TEXT);
.import --csv --skip 1 /tmp/shipments.csv staged
CREATE TEMP TABLE classified AS
SELECT staged.rowid AS n, staged.*,
  CASE
    WHEN shipment_id IN (SELECT shipment_id FROM shipments) THEN 'duplicate'
    WHEN carrier NOT IN (SELECT code FROM carriers) THEN 'unknown_carrier'
    WHEN NOT (trim(weight_kg) GLOB '[0-9]*' AND CAST(weight_kg AS REAL) > 0) THEN 'bad_weight'
    -- date() lets a 31st of any month through; a '+0 days' modifier normalises it
    WHEN date(shipped_on, '+0 days') IS NULL OR date(shipped_on, '+0 days') != shipped_on THEN 'bad_date'
  END AS reason
FROM staged;
BEGIN;
INSERT INTO shipments (shipment_id, carrier_id, weight_kg, shipped_on)
  SELECT shipment_id, (SELECT id FROM carriers WHERE code = carrier), CAST(weight_kg AS REAL), shipped_on
  FROM classified WHERE reason IS NULL ORDER BY n;
COMMIT;
.headers on
.mode csv
.once $rej
SELECT shipment_id, carrier, weight_kg, shipped_on, reason FROM classified WHERE reason IS NOT NULL ORDER BY n;
SQL
rm -f /tmp/shipments.csv
sqlite3 warehouse.db "SELECT count(*) FROM shipments"
cat "$rej"
