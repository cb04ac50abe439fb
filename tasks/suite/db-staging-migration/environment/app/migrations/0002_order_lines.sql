CREATE TABLE order_lines (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
                          sku TEXT NOT NULL, qty INTEGER NOT NULL CHECK (qty > 0),
                          unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0));
