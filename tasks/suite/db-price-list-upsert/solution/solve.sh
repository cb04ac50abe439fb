#!/bin/bash
# Reference solution: the CSV into a temp staging table, then in one
# transaction the history rows for real changes, an INSERT ... ON CONFLICT
# DO UPDATE that leaves unchanged rows alone, and the rejects.
set -euo pipefail
cd /srv/pricing
sqlite3 -bail catalog.db <<'SQL'
CREATE TEMP TABLE staging (sku TEXT, name TEXT, price_eur TEXT);
.import --csv --skip 1 supplier-2026-12-01.csv staging
CREATE TEMP TABLE incoming AS
	SELECT upper(trim(sku)) AS sku, name, CAST(round(CAST(price_eur AS REAL) * 100) AS INTEGER) AS cents FROM staging;
BEGIN;
INSERT INTO price_history
	SELECT p.sku, p.price_cents, i.cents, '2026-12-01' FROM prices p JOIN incoming i USING (sku)
	WHERE i.cents > 0 AND i.cents <> p.price_cents;
INSERT INTO prices (sku, name, price_cents, currency, updated_at)
	SELECT sku, name, cents, 'EUR', '2026-12-01' FROM incoming WHERE cents > 0 AND true
	ON CONFLICT (sku) DO UPDATE SET name = excluded.name, price_cents = excluded.price_cents, updated_at = excluded.updated_at
	WHERE prices.price_cents <> excluded.price_cents OR prices.name <> excluded.name;
COMMIT;
.once rejected.txt
SELECT sku FROM incoming WHERE cents <= 0 ORDER BY sku;
SQL
cat rejected.txt
