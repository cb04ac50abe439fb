-- 0007: store each order's total so the dashboard stops summing the lines on
-- every page view.
ALTER TABLE orders ADD COLUMN total_cents INTEGER;
-- TODO: backfill, and keep it right when the app changes order_lines
