"""Utility verifier: the week's rollup files follow the README, and the fixed script handles a fresh spool."""
import json
import subprocess
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

SPOOL = Path("/srv/pos/spool")
OUT = Path("/srv/pos/rollup/out")
SCRIPT = Path("/srv/pos/rollup/rollup.js")
DAYS = [f"2026-11-{d}" for d in range(23, 30)]


def expected(spool):
    days = defaultdict(lambda: defaultdict(lambda: {"transactions": 0, "refunds": 0, "net_cents": 0}))
    for f in spool.glob("*/*/*.json"):
        t = json.loads(f.read_text())
        if t.get("voided"):
            continue
        cents = sum(int(l["qty"] * Decimal(l["unit_price"]) * 100) for l in t["lines"])
        s = days[t["ts"][:10]][t["store"]]
        s["transactions"] += 1
        if t["type"] == "refund":
            s["refunds"] += 1
            cents = -cents
        s["net_cents"] += cents
    return {d: {"day": d, "stores": dict(sorted(st.items())), "net_cents": sum(x["net_cents"] for x in st.values())}
            for d, st in days.items()}


def test_week_rolled_up():
    want = expected(SPOOL)
    assert sorted(want) == DAYS
    for day in DAYS:
        got = json.loads((OUT / f"{day}.json").read_text())
        assert got == want[day], day
        assert list(got["stores"]) == sorted(got["stores"]), day


def test_no_stray_days_and_last_week_kept():
    names = sorted(p.name for p in OUT.iterdir())
    assert names == [f"2026-11-{d}.json" for d in range(16, 30)], names


def txn(store, seq, ts, kind="sale", lines=(("A", 2, "1.10"),), **extra):
    return {"id": f"{store}-{seq}", "store": store, "ts": ts, "type": kind,
            "lines": [{"sku": s, "qty": q, "unit_price": p} for s, q, p in lines], "currency": "EUR", **extra}


def test_script_handles_a_fresh_spool(tmp_path):
    spool, out = tmp_path / "spool", tmp_path / "out"
    files = {
        "S01/2026-12-02/S01-1.json": txn("S01", 1, "2026-12-02T09:00:00+01:00", lines=(("A", 3, "0.35"), ("B", 1, "19.99"))),
        "S01/2026-12-03/S01-2.json": txn("S01", 2, "2026-12-02T23:50:00+01:00"),
        "S01/2026-12-03/S01-3.json": txn("S01", 3, "2026-12-03T00:20:00+01:00", kind="refund", lines=(("B", 1, "19.99"),)),
        "S02/2026-12-02/S02-1.json": txn("S02", 1, "2026-12-02T10:00:00+02:00", voided=True),
        "S02/2026-12-02/S02-2.json": txn("S02", 2, "2026-12-02T00:30:00+02:00", lines=(("C", 1, "4.95"),)),
    }
    for name, t in files.items():
        (spool / name).parent.mkdir(parents=True, exist_ok=True)
        (spool / name).write_text(json.dumps(t))
    (spool / "S02/2026-12-02/S02-3.json.part").write_text('{"id": "S02-3", "store": "S0')
    res = subprocess.run(["node", str(SCRIPT), str(spool), str(out)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["2026-12-02.json", "2026-12-03.json"]
    d2 = json.loads((out / "2026-12-02.json").read_text())
    assert d2 == {"day": "2026-12-02", "stores": {"S01": {"transactions": 2, "refunds": 0, "net_cents": 2324},
                                                 "S02": {"transactions": 1, "refunds": 0, "net_cents": 495}},
                  "net_cents": 2819}
    d3 = json.loads((out / "2026-12-03.json").read_text())
    assert d3 == {"day": "2026-12-03", "stores": {"S01": {"transactions": 1, "refunds": 1, "net_cents": -1999}},
                  "net_cents": -1999}
