#!/usr/bin/env python3
"""Builds crm.db and the old backups of db-vacuum-into-retention (fixed seed); the
backups' mtimes are scrambled (a restore test touched them)."""
import os
import random
import sqlite3
import sys

rng = random.Random(1203)
db_path, backups = sys.argv[1], sys.argv[2]
db = sqlite3.connect(db_path)
db.executescript("""
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tier TEXT NOT NULL);
CREATE TABLE notes (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), body TEXT NOT NULL);
""")
for i in range(1, 801):
    db.execute("INSERT INTO customers VALUES (?, ?, ?)", (i, f"Customer {i:04d}", rng.choice(["gold", "silver", "basic"])))
for i in range(1, 3001):
    db.execute("INSERT INTO notes VALUES (?, ?, ?)", (i, rng.randint(1, 800), "note " + "x" * rng.randint(10, 400)))
db.commit()
# churn leaves free pages, which VACUUM INTO drops from the copy
db.execute("DELETE FROM notes WHERE id % 3 = 0")
db.commit()
db.close()
os.makedirs(backups, exist_ok=True)
days = [f"2026-11-{d:02d}" for d in range(20, 31)] + ["2026-12-01", "2026-12-02"]
for day in days:
    with open(os.path.join(backups, f"crm-{day}.db"), "wb") as f:
        f.write(b"SQLite format 3\x00" + day.encode() + bytes(4000))
    with open(os.path.join(backups, f"crm-{day}.sha256"), "w") as f:
        f.write(f"{'0' * 64}  crm-{day}.db\n")
with open(os.path.join(backups, "crm-manual-before-migration.db"), "wb") as f:
    f.write(b"SQLite format 3\x00manual" + bytes(4000))
base = 1764720000  # 2025-12-03
for name in os.listdir(backups):
    t = base + rng.randint(0, 30 * 86400)
    os.utime(os.path.join(backups, name), (t, t))
