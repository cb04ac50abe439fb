#!/usr/bin/env python3
"""Apply pending SQL migrations to the inventory database.

Usage: migrate.py [--db PATH] [--status]

Each file in migrations/ named NNN_description.sql is one migration; the
applied ones are recorded in the schema_migrations table. Every migration
runs in its own transaction through the sqlite3 command-line shell, so a
failing migration leaves the database as it was before that migration.
"""
import argparse
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MIGRATION = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


def applied_versions(db):
    con = sqlite3.connect(db)
    try:
        con.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
        con.commit()
        return {row[0] for row in con.execute("SELECT version FROM schema_migrations")}
    finally:
        con.close()


def migrations():
    found = []
    for path in sorted((HERE / "migrations").iterdir()):
        m = MIGRATION.match(path.name)
        if m:
            found.append((int(m.group(1)), path))
    return found


def apply(db, version, path):
    script = "BEGIN;\n" + path.read_text() + \
        f"\nINSERT INTO schema_migrations VALUES ({version}, datetime('now'));\nCOMMIT;\n"
    proc = subprocess.run(["sqlite3", "-bail", str(db)], input=script, text=True,
                          capture_output=True)
    if proc.returncode != 0:
        sys.exit(f"migration {path.name} failed: {proc.stderr.strip()}")
    print(f"applied {path.name}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", default=str(HERE / "inventory.db"))
    ap.add_argument("--status", action="store_true")
    args = ap.parse_args()
    done = applied_versions(args.db)
    pending = [(v, p) for v, p in migrations() if v not in done]
    if args.status:
        for v, p in migrations():
            print(f"{'applied' if v in done else 'pending'} {p.name}")
        return
    if not pending:
        print("database is up to date")
    for v, p in pending:
        apply(args.db, v, p)


if __name__ == "__main__":
    main()
