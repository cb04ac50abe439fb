#!/bin/bash
# Reference solution: the column, a backfill, and triggers on order_lines
# for insert, delete and update (an update may move a line to another
# order); applied with the project's migrate to the staging copy only
# (the Makefile's default DB is the live one).
set -euo pipefail
cd /srv/app
cat > migrations/0007_order_totals.sql <<'SQL'
-- 0007: store each order's total so the dashboard stops summing the lines on
-- every page view; triggers keep it current as the app changes order_lines.
ALTER TABLE orders ADD COLUMN total_cents INTEGER NOT NULL DEFAULT 0;
UPDATE orders SET total_cents = coalesce(
  (SELECT sum(qty * unit_price_cents - discount_cents) FROM order_lines l WHERE l.order_id = orders.id), 0);
CREATE TRIGGER order_lines_total_insert AFTER INSERT ON order_lines BEGIN
  UPDATE orders SET total_cents = total_cents + NEW.qty * NEW.unit_price_cents - NEW.discount_cents
   WHERE id = NEW.order_id;
END;
CREATE TRIGGER order_lines_total_delete AFTER DELETE ON order_lines BEGIN
  UPDATE orders SET total_cents = total_cents - (OLD.qty * OLD.unit_price_cents - OLD.discount_cents)
   WHERE id = OLD.order_id;
END;
CREATE TRIGGER order_lines_total_update AFTER UPDATE ON order_lines BEGIN
  UPDATE orders SET total_cents = total_cents - (OLD.qty * OLD.unit_price_cents - OLD.discount_cents)
   WHERE id = OLD.order_id;
  UPDATE orders SET total_cents = total_cents + NEW.qty * NEW.unit_price_cents - NEW.discount_cents
   WHERE id = NEW.order_id;
END;
SQL
make migrate DB=staging/app.sqlite
