#!/usr/bin/env python3
"""Builds the live database at schema version 5 (and nothing else) for db-migrate-staging-then-live."""
import random
import sqlite3
import sys

rng = random.Random(5521)
db = sqlite3.connect(sys.argv[1])
db.executescript("""
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL);
INSERT INTO schema_version VALUES (1, 1700000000), (2, 1710000000), (3, 1720000000), (4, 1730000000), (5, 1740000000);
CREATE TABLE accounts (id INTEGER PRIMARY KEY, email TEXT NOT NULL, country TEXT NOT NULL, last_login TEXT);
CREATE TABLE invoices (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id), cents INTEGER NOT NULL);
""")
names = [f"user{i:04d}@example.org" for i in range(400)]
aid = 0
for n in names:
    aid += 1
    db.execute("INSERT INTO accounts VALUES (?, ?, ?, ?)", (aid, n, rng.choice(["DE", "GB", "FR", "NL"]),
               f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}"))
# case duplicates (SUP-5521), one with equal last_login
for i, last in [(3, "2026-11-30"), (17, "2025-01-02"), (101, None), (250, "2026-06-01"), (251, "2026-06-01")]:
    aid += 1
    email = names[i].upper() if i % 2 else names[i].capitalize()
    db.execute("INSERT INTO accounts VALUES (?, ?, 'DE', ?)", (aid, email, last))
db.execute("UPDATE accounts SET last_login = '2026-06-01' WHERE id IN (251, 252)")
iid = 0
for a in range(1, aid + 1):
    for _ in range(rng.randint(0, 4)):
        iid += 1
        db.execute("INSERT INTO invoices VALUES (?, ?, ?)", (iid, a, rng.randint(500, 90000)))
db.commit()
