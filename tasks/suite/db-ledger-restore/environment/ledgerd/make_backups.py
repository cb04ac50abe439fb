"""Build-time only: the nightly backups of the ledger (three nights)."""
import gzip
import os
import random
import sqlite3
import sys

out = sys.argv[1]
rng = random.Random(4410)
accounts = ["payroll", "suppliers", "rent", "utilities", "travel", "customers"]
entries = []
day_counts = {"2026-11-28": 140, "2026-11-29": 35, "2026-11-30": 162}
for day, count in day_counts.items():
    for _ in range(count):
        acct = rng.randrange(1, len(accounts) + 1)
        amount = rng.randrange(500, 900000) * (1 if acct == 6 else -1)
        entries.append((day, acct, amount))
    path = os.path.join(out, f"ledger-{day}.db")
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
        "CREATE TABLE entries (id INTEGER PRIMARY KEY, day TEXT NOT NULL, account_id INTEGER NOT NULL"
        " REFERENCES accounts(id), amount_cents INTEGER NOT NULL, memo TEXT);"
        "CREATE TABLE heartbeat (ts INTEGER NOT NULL, pid INTEGER);"
        "PRAGMA user_version = 4;"
    )
    db.executemany("INSERT INTO accounts VALUES (?, ?)", list(enumerate(accounts, 1)))
    db.executemany("INSERT INTO entries (day, account_id, amount_cents, memo) VALUES (?, ?, ?, ?)",
                   [(d, a, m, f"{accounts[a - 1]} {i}") for i, (d, a, m) in enumerate(entries, 1)])
    db.execute("INSERT INTO heartbeat VALUES (?, 1)", (1764460800 + len(entries),))
    db.commit()
    db.close()
    with open(path, "rb") as f, gzip.GzipFile(path + ".gz", "wb", mtime=0) as g:
        g.write(f.read())
    os.remove(path)
