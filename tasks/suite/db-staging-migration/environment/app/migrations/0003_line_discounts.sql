-- per-line discount in cents (vouchers are split over the lines they apply to)
ALTER TABLE order_lines ADD COLUMN discount_cents INTEGER NOT NULL DEFAULT 0;
