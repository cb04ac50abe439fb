"""Utility verifier: the KPI file matches the database."""
import json
import sqlite3
from pathlib import Path

DB = "file:/srv/analytics/events.db?mode=ro"
REPORT = Path("/srv/analytics/reports/kpi-2024-W10.json")


def expected():
    db = sqlite3.connect(DB, uri=True)
    lo, hi = "2024-03-04T00:00:00Z", "2024-03-11T00:00:00Z"
    active = {"free": 0, "pro": 0, "team": 0}
    for plan, n in db.execute("SELECT u.plan, COUNT(DISTINCT e.user_id) FROM events e JOIN users u ON u.id = e.user_id"
                              " WHERE e.ts >= ? AND e.ts < ? GROUP BY u.plan", (lo, hi)):
        active[plan] = n
    signups = db.execute("SELECT COUNT(*) FROM users WHERE signup_date >= '2024-03-04' AND signup_date <= '2024-03-10'").fetchone()[0]
    events = db.execute("SELECT COUNT(*) FROM events WHERE ts >= ? AND ts < ?", (lo, hi)).fetchone()[0]
    return {"week": "2024-W10", "active_users": active, "new_signups": signups, "events": events}


def test_kpis_match_database():
    assert json.loads(REPORT.read_text()) == expected()
