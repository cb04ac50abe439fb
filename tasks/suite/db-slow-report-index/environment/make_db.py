"""Build-time only: the warehouse database (30,000 shipments, their tracking scans)."""
import random
import sqlite3
import sys

rng = random.Random(5)
db = sqlite3.connect(sys.argv[1])
db.executescript("""
CREATE TABLE carriers (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE shipments (id INTEGER PRIMARY KEY, carrier_id INTEGER NOT NULL REFERENCES carriers(id),
                        shipped_at TEXT NOT NULL, promised_at TEXT NOT NULL, dest_country TEXT);
CREATE TABLE tracking (id INTEGER PRIMARY KEY, shipment_id INTEGER NOT NULL REFERENCES shipments(id),
                       ts TEXT NOT NULL, status TEXT NOT NULL);
""")
db.executemany("INSERT INTO carriers VALUES (?, ?)", [(1, "DHL"), (2, "GLS"), (3, "DPD"), (4, "UPS"), (5, "PostNL")])


def day(d, hh, mm=0):
    return f"2026-{8 + d // 30:02d}-{d % 30 + 1:02d} {hh:02d}:{mm:02d}:00"


shipments, scans = [], []
for i in range(1, 30001):
    d = rng.randrange(0, 120)
    shipments.append((i, rng.randrange(1, 6), day(d, rng.randrange(6, 20)), day(d + 3, 18), rng.choice(["DE", "NL", "FR", "AT"])))
    delivered = d + rng.choice([1, 2, 2, 3, 3, 3, 4, 5])
    for status, when in (("label", d), ("in_transit", d + 1), ("delivered", delivered)):
        if status == "delivered" and rng.random() < 0.05:
            continue
        scans.append((i, day(when, rng.randrange(7, 21), rng.randrange(60)), status))
    if rng.random() < 0.02:  # a second delivery scan after a failed attempt
        scans.append((i, day(delivered + 1, rng.randrange(7, 21), rng.randrange(60)), "delivered"))
rng.shuffle(scans)
db.executemany("INSERT INTO shipments VALUES (?, ?, ?, ?, ?)", shipments)
db.executemany("INSERT INTO tracking (shipment_id, ts, status) VALUES (?, ?, ?)", scans)
db.commit()
db.execute("VACUUM")
