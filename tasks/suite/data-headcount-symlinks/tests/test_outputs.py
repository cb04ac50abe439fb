"""Utility verifier: the Q4 headcount table, computed from HR's staff export."""
import csv
from collections import Counter
from pathlib import Path

PACK = Path("/srv/analytics/board-pack")
STAFF = Path("/srv/hr/exports/staff_directory.csv")
UNITS = PACK / "inputs/org_units.csv"


def expected():
    units = {r["dept_code"]: (r["division"], r["department"]) for r in csv.DictReader(UNITS.open())}
    start, join, leave = Counter(), Counter(), Counter()
    for r in csv.DictReader(STAFF.open()):
        if r["type"] != "employee":
            continue
        k = units[r["dept_code"]]
        s, e = r["start_date"], r["end_date"]
        start[k] += s < "2026-10-01" and (not e or e >= "2026-10-01")
        join[k] += "2026-10-01" <= s <= "2026-12-31"
        leave[k] += bool(e) and "2026-10-01" <= e <= "2026-12-31"
    return [[d, p, str(start[(d, p)]), str(join[(d, p)]), str(leave[(d, p)]),
             str(start[(d, p)] + join[(d, p)] - leave[(d, p)])] for d, p in sorted(units.values())]


def test_headcount_table():
    with (PACK / "out/q4-headcount.csv").open(newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    assert rows[0] == ["division", "department", "headcount_start", "joiners", "leavers", "headcount_end"]
    want = expected()
    assert sum(int(r[3]) for r in want) >= 8 and sum(int(r[4]) for r in want) >= 8
    assert rows[1:] == want
