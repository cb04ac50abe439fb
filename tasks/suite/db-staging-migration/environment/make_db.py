"""Build-time only: orders for the live database and its staging copy."""
import random
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
rng = random.Random(707)
skus = [("TSHIRT-B", 1990), ("HOODIE-G", 4990), ("CAP-01", 1490), ("SOCKS-3", 990), ("MUG-XL", 1290), ("BAG-TOTE", 1790)]
for c in range(1, 41):
    db.execute("INSERT INTO customers (id, email, name) VALUES (?, ?, ?)", (c, f"c{c}@example.org", f"Customer {c}"))
for o in range(1, int(sys.argv[2]) + 1):
    db.execute("INSERT INTO orders (id, customer_id, placed_at, status) VALUES (?, ?, ?, ?)",
               (o, rng.randrange(1, 41), f"2026-11-{rng.randrange(1, 29):02d} {rng.randrange(8, 23):02d}:{rng.randrange(60):02d}:00",
                rng.choice(["open", "paid", "shipped", "shipped", "cancelled"])))
    for _ in range(rng.choice([0, 1, 1, 2, 3, 4])):
        sku, price = rng.choice(skus)
        qty = rng.randrange(1, 4)
        disc = rng.choice([0, 0, 0, 150, 500]) if qty * price > 500 else 0
        db.execute("INSERT INTO order_lines (order_id, sku, qty, unit_price_cents, discount_cents) VALUES (?, ?, ?, ?, ?)",
                   (o, sku, qty, price, disc))
db.commit()
