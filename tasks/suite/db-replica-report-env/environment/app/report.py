#!/usr/bin/python3 -P
"""Weekly signups report: signups per day and plan of one ISO week, as CSV.

Configuration comes from the environment (see README.md): DB_PATH, the SQLite
database to read; DB_READONLY=1 opens it read-only (replicas) and skips the
run log the primary keeps in report_runs.
"""
import argparse
import csv
import datetime
import os
import sqlite3
import sys


def connect():
    path = os.environ.get("DB_PATH")
    if not path:
        sys.exit("report: DB_PATH is not set (source an env file first, see README.md)")
    if os.environ.get("DB_READONLY") == "1":
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True), False
    return sqlite3.connect(path), True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--week", required=True, help="ISO week, e.g. 2026-W48")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    year, week = a.week.split("-W")
    start = datetime.date.fromisocalendar(int(year), int(week), 1)
    end = start + datetime.timedelta(days=7)
    db, log_run = connect()
    rows = db.execute(
        "SELECT date(created_at), plan, count(*) FROM signups"
        " WHERE created_at >= ? AND created_at < ? AND deleted = 0"
        " GROUP BY 1, 2 ORDER BY 1, 2",
        (start.isoformat(), end.isoformat()),
    ).fetchall()
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["day", "plan", "signups"])
        w.writerows(rows)
    if log_run:
        db.execute("INSERT INTO report_runs(report, week, run_at) VALUES ('signups', ?, datetime('now'))", (a.week,))
        db.commit()
    print(f"{len(rows)} rows -> {a.out}")


if __name__ == "__main__":
    main()
