ALTER TABLE invoices ADD COLUMN currency TEXT NOT NULL DEFAULT 'EUR';
UPDATE invoices SET currency = 'GBP' WHERE account_id IN (SELECT id FROM accounts WHERE country = 'GB');
