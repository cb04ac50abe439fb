#!/bin/bash
# Reference solution: the report rewritten to age against :'asof' (not
# current_date), on outstanding amounts of open invoices, with the buckets'
# edges where its header puts them; run with psql over the unix socket.
set -euo pipefail
cd /srv/billing
cat README.md
cat > reports/aging.sql <<'SQL'
-- Receivables aging by customer, as of the date given with -v asof=YYYY-MM-DD.
-- Run: psql -X -v ON_ERROR_STOP=1 -v asof=2026-11-30 --csv -f reports/aging.sql
-- Columns (euros, 2 decimals): customer, current (not yet due), d1_30,
-- d31_60, d61_90 (days past due), d90_plus; every customer with anything
-- outstanding, by name. Voided invoices and paid amounts do not count.
WITH aged AS (
	SELECT customer, total_cents - paid_cents AS cents, date :'asof' - due_date AS days
	FROM invoices
	WHERE status <> 'void' AND total_cents > paid_cents
)
SELECT customer,
	to_char(sum(CASE WHEN days <= 0 THEN cents ELSE 0 END) / 100.0, 'FM999999990.00') AS current,
	to_char(sum(CASE WHEN days BETWEEN 1 AND 30 THEN cents ELSE 0 END) / 100.0, 'FM999999990.00') AS d1_30,
	to_char(sum(CASE WHEN days BETWEEN 31 AND 60 THEN cents ELSE 0 END) / 100.0, 'FM999999990.00') AS d31_60,
	to_char(sum(CASE WHEN days BETWEEN 61 AND 90 THEN cents ELSE 0 END) / 100.0, 'FM999999990.00') AS d61_90,
	to_char(sum(CASE WHEN days > 90 THEN cents ELSE 0 END) / 100.0, 'FM999999990.00') AS d90_plus
FROM aged
GROUP BY customer
ORDER BY customer;
SQL
pg() { psql -X -h /run/postgresql -U billing -v ON_ERROR_STOP=1 "$@" billing; }
for _ in $(seq 1 100); do pg -tAc "SELECT count(*) FROM invoices" > /dev/null 2>&1 && break; sleep 0.3; done
pg -v asof=2026-11-30 --csv -f reports/aging.sql > out/aging-2026-11-30.csv
cat out/aging-2026-11-30.csv
