"""Utility verifier: the Deskly import CSV lists the tickets that are not closed, computed from the database."""
import csv
import json
import sqlite3
from datetime import datetime
from pathlib import Path

DB = Path("/srv/helpdesk/helpdesk.db")
OUT = Path("/srv/share/deskly-import/open-tickets.csv")
HEADER = ["ticket_id", "customer_email", "subject", "status", "opened_at", "first_response_min", "tags"]


def ts(s):
    return datetime.strptime(s, "%Y-%m-%d %H:%M:%S")


def expected():
    db = sqlite3.connect(f"file:{DB}?mode=ro", uri=True)
    rows = []
    for tid, email, subject, status, opened, tags in db.execute(
        "SELECT t.id, c.email, t.subject, t.status, t.opened_at, t.tags FROM tickets t"
        " JOIN customers c ON c.id = t.customer_id WHERE t.status != 'closed' ORDER BY t.id"
    ):
        agent = [ts(r[0]) for r in db.execute(
            "SELECT sent_at FROM messages WHERE ticket_id = ? AND author = 'agent'", (tid,))]
        first = str(int((min(agent) - ts(opened)).total_seconds() // 60)) if agent else ""
        rows.append([str(tid), email, subject, status, opened, first, ";".join(sorted(json.loads(tags)))])
    return rows


def test_open_tickets_csv():
    with OUT.open(newline="") as f:
        got = list(csv.reader(f))
    assert got[0] == HEADER
    want = expected()
    assert len(want) > 25
    assert any(r[5] == "" for r in want) and any('"' in r[2] or "," in r[2] for r in want)
    assert got[1:] == want


def test_database_unchanged():
    db = sqlite3.connect(f"file:{DB}?mode=ro", uri=True)
    assert db.execute("SELECT count(*) FROM tickets").fetchone()[0] == 60
    assert db.execute("SELECT count(*) FROM messages").fetchone()[0] > 100
