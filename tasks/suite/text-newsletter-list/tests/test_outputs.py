"""Utility verifier: the subscriber list follows the rules in the request."""
import csv
import json
from pathlib import Path

EXPORT = Path("/home/sales/exports/crm-contacts-2026-11.json")
OUT = Path("/home/sales/newsletter/subscribers.csv")


def expected():
    latest = {}
    for c in json.loads(EXPORT.read_text())["contacts"]:
        email = c["contact"]["email"]
        if email is None:
            continue
        email = email.strip().lower()
        if email not in latest or c["updated_at"] > latest[email]["updated_at"]:
            latest[email] = c
    rows = []
    for email, c in latest.items():
        if c["marketing"]["opt_in"]:
            rows.append([email, c["name"]["first"].strip(), c["name"]["last"].strip(), c["address"]["country"].upper()])
    return sorted(rows)


def test_subscribers():
    with OUT.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["email", "first_name", "last_name", "country"]
    want = expected()
    assert len(want) > 20
    assert rows[1:] == want
