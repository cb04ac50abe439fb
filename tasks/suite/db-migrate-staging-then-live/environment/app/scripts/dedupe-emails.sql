-- SUP-5521: accounts whose e-mail differs only in case. Keep, per address,
-- the account that logged in last (ties: the lowest id); move the others'
-- invoices to it and delete them. Idempotent; run it before 0008.
CREATE TEMP TABLE keep AS
	SELECT lower(email) AS addr,
	       (SELECT a2.id FROM accounts a2 WHERE lower(a2.email) = lower(a.email)
	        ORDER BY a2.last_login DESC, a2.id LIMIT 1) AS id
	FROM accounts a GROUP BY lower(email) HAVING count(*) > 1;
UPDATE invoices SET account_id = (SELECT k.id FROM keep k JOIN accounts a ON lower(a.email) = k.addr WHERE a.id = invoices.account_id)
	WHERE account_id IN (SELECT a.id FROM accounts a JOIN keep k ON lower(a.email) = k.addr WHERE a.id <> k.id);
DELETE FROM accounts WHERE id IN (SELECT a.id FROM accounts a JOIN keep k ON lower(a.email) = k.addr WHERE a.id <> k.id);
DROP TABLE keep;
