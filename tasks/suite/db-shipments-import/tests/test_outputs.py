"""Utility verifier: valid rows are in the database, the others in the rejects file with the right reason."""
import csv
import datetime
import sqlite3
from pathlib import Path

DIR = Path("/srv/warehouse")
IN = DIR / "incoming/shipments-2026-11-30.csv"
REJ = DIR / "incoming/shipments-2026-11-30.rejects.csv"
EXISTING = {"SHP-10001", "SHP-10002", "SHP-10003", "SHP-10004", "SHP-10005"}
CARRIERS = {"DHL": 1, "UPS": 2, "DPD": 3, "GLS": 4}


def reason(row):
    if row["shipment_id"] in EXISTING:
        return "duplicate"
    if row["carrier"] not in CARRIERS:
        return "unknown_carrier"
    try:
        if not float(row["weight_kg"]) > 0:
            return "bad_weight"
    except ValueError:
        return "bad_weight"
    try:
        if datetime.date.fromisoformat(row["shipped_on"]).isoformat() != row["shipped_on"]:
            return "bad_date"
    except ValueError:
        return "bad_date"
    return None


def rows():
    with IN.open(newline="") as f:
        return list(csv.DictReader(f))


def test_valid_rows_loaded():
    good = [r for r in rows() if reason(r) is None]
    con = sqlite3.connect(DIR / "warehouse.db")
    got = {r[0]: r[1:] for r in con.execute("SELECT shipment_id, carrier_id, weight_kg, shipped_on FROM shipments")}
    assert len(got) == 5 + len(good)
    for r in good:
        assert got[r["shipment_id"]] == (CARRIERS[r["carrier"]], float(r["weight_kg"]), r["shipped_on"])
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert con.execute("PRAGMA foreign_key_check").fetchall() == []


def test_rejects_file():
    want = [[r["shipment_id"], r["carrier"], r["weight_kg"], r["shipped_on"], reason(r)] for r in rows() if reason(r)]
    assert len(want) >= 8
    assert {w[4] for w in want} == {"duplicate", "unknown_carrier", "bad_weight", "bad_date"}
    with REJ.open(newline="") as f:
        got = list(csv.reader(f))
    assert got[0] == ["shipment_id", "carrier", "weight_kg", "shipped_on", "reason"]
    assert got[1:] == want
