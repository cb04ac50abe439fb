"""Builds the primary database and its nightly replica (run at build time)."""
import random
import shutil
import sqlite3
from datetime import datetime, timedelta

r = random.Random(4848)
db = sqlite3.connect("/srv/data/primary.db")
db.executescript("""
CREATE TABLE signups(id INTEGER PRIMARY KEY, email TEXT, plan TEXT, created_at TEXT, deleted INTEGER NOT NULL DEFAULT 0);
CREATE TABLE report_runs(id INTEGER PRIMARY KEY, report TEXT, week TEXT, run_at TEXT);
""")
t = datetime(2026, 11, 9)
while t < datetime(2026, 12, 2):
    t += timedelta(minutes=r.randint(5, 160))
    db.execute("INSERT INTO signups(email, plan, created_at, deleted) VALUES (?, ?, ?, ?)",
               (f"user{r.getrandbits(32):08x}@mail.example", r.choice(["free", "free", "free", "pro", "team"]),
                t.strftime("%Y-%m-%d %H:%M:%S"), int(r.random() < 0.06)))
db.execute("INSERT INTO report_runs(report, week, run_at) VALUES ('signups', '2026-W47', '2026-11-23 06:00:02')")
db.commit()
db.close()
shutil.copy("/srv/data/primary.db", "/srv/replica/app.db")
