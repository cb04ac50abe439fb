-- Receivables aging by customer, as of the date given with -v asof=YYYY-MM-DD.
-- Run: psql -X -v ON_ERROR_STOP=1 -v asof=2026-11-30 --csv -f reports/aging.sql
-- Columns (euros, 2 decimals): customer, current (not yet due), d1_30,
-- d31_60, d61_90 (days past due), d90_plus; every customer with anything
-- outstanding, by name. Voided invoices and paid amounts do not count.
WITH aged AS (
	SELECT customer, total_cents AS cents, current_date - due_date AS days
	FROM invoices
)
SELECT customer,
	to_char(sum(CASE WHEN days <= 0 THEN cents ELSE 0 END) / 100.0, 'FM999999990.00') AS current,
	to_char(sum(CASE WHEN days > 0 AND days < 30 THEN cents ELSE 0 END) / 100.0, 'FM999999990.00') AS d1_30,
	to_char(sum(CASE WHEN days >= 30 AND days < 60 THEN cents ELSE 0 END) / 100.0, 'FM999999990.00') AS d31_60,
	to_char(sum(CASE WHEN days >= 60 AND days < 90 THEN cents ELSE 0 END) / 100.0, 'FM999999990.00') AS d61_90,
	to_char(sum(CASE WHEN days >= 90 THEN cents ELSE 0 END) / 100.0, 'FM999999990.00') AS d90_plus
FROM aged
GROUP BY customer
ORDER BY customer;
