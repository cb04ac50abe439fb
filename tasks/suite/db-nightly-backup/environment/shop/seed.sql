CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), placed_at TEXT NOT NULL, total_cents INTEGER NOT NULL);
CREATE TABLE order_lines (order_id INTEGER NOT NULL REFERENCES orders(id), sku TEXT NOT NULL, qty INTEGER NOT NULL, price_cents INTEGER NOT NULL);
INSERT INTO customers VALUES (1, 'ana.ferreira@example.org', 'Ana Ferreira'), (2, 'j.okafor@example.net', 'John Okafor'), (3, 'mei.lin@example.com', 'Mei Lin'), (4, 'p.novak@example.org', 'Petr Novak');
INSERT INTO orders VALUES (1001, 1, '2026-11-02 10:12:00', 4590), (1002, 3, '2026-11-03 18:40:00', 1250), (1003, 2, '2026-11-07 09:05:00', 9900), (1004, 1, '2026-11-15 21:30:00', 2375), (1005, 4, '2026-11-28 13:14:00', 15800);
INSERT INTO order_lines VALUES (1001, 'MUG-BLK', 2, 1295), (1001, 'TEE-M', 1, 2000), (1002, 'STK-PACK', 5, 250), (1003, 'HOOD-L', 2, 4950), (1004, 'MUG-BLK', 1, 1295), (1004, 'STK-PACK', 4, 270), (1005, 'JKT-XL', 1, 15800);
