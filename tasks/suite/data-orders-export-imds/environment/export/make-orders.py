#!/usr/bin/env python3
"""Builds orders.db for data-orders-export-imds at image build time (fixed seed)."""
import random
import sqlite3
import sys
from datetime import datetime, timedelta, timezone

rng = random.Random(9000)
db = sqlite3.connect(sys.argv[1])
db.execute("""CREATE TABLE orders (
	id INTEGER PRIMARY KEY,
	created_at TEXT NOT NULL,   -- ISO 8601; POS terminals send local time with an offset
	customer_id TEXT NOT NULL,
	status TEXT NOT NULL CHECK (status IN ('paid', 'shipped', 'refunded', 'cancelled', 'test')),
	total_cents INTEGER NOT NULL
)""")
start = datetime(2026, 11, 30, 18, 0, tzinfo=timezone.utc)
oid = 50000
for _ in range(900):
    oid += rng.randint(1, 3)
    t = start + timedelta(seconds=rng.randint(0, 4 * 86400))
    status = rng.choices(["paid", "shipped", "refunded", "cancelled", "test"], [50, 30, 6, 8, 6])[0]
    if rng.random() < 0.3:
        local = t.astimezone(timezone(timedelta(hours=1)))
        stamp = local.strftime("%Y-%m-%dT%H:%M:%S+01:00")
    else:
        stamp = t.strftime("%Y-%m-%dT%H:%M:%SZ")
    db.execute("INSERT INTO orders VALUES (?, ?, ?, ?, ?)",
               (oid, stamp, f"C{rng.randint(1000, 9999)}", status, rng.randint(199, 250000)))
# the edges of the business day (UTC), written as POS terminals write them
for oid, stamp in [(90001, "2026-12-03T00:30:00+01:00"), (90002, "2026-12-02T00:45:00+01:00"),
                   (90003, "2026-12-02T00:00:00Z"), (90004, "2026-12-03T00:00:00Z"),
                   (90005, "2026-12-02T23:59:59Z")]:
    db.execute("INSERT INTO orders VALUES (?, ?, 'C4242', 'paid', 1005)", (oid, stamp))
db.commit()
