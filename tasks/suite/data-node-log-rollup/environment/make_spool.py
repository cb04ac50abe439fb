"""Build-time only: a week of till uploads for 12 stores, and last week's rollup output."""
import json
import random
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

spool = Path(sys.argv[1])
out = Path(sys.argv[2])
rng = random.Random(20261123)
SKUS = [("COF-250", "4.95"), ("TEA-100", "3.49"), ("MUG-01", "12.90"), ("CRS-02", "2.15"),
        ("BAG-10", "0.35"), ("CAK-07", "3.80"), ("JUI-33", "2.99"), ("SND-11", "5.45")]
stores = [f"S{n:02d}" for n in range(1, 13)]
tz = {s: timezone(timedelta(hours=2 if s in ("S07", "S11") else 1)) for s in stores}
start = date(2026, 11, 23)
for store in stores:
    seq = 0
    for d in range(7):
        day = start + timedelta(days=d)
        for _ in range(rng.randrange(38, 62)):
            seq += 1
            close = 24 * 60 + 40 if d < 6 else 24 * 60  # open 07:00 until 00:40 (Sunday: midnight)
            minute = rng.randrange(7 * 60, close)
            local = datetime(day.year, day.month, day.day, tzinfo=tz[store]) + timedelta(minutes=minute, seconds=rng.randrange(60))
            upload = local.date()
            if rng.random() < 0.08:  # offline till: uploaded the next morning
                upload += timedelta(days=1)
            kind = "refund" if rng.random() < 0.06 else "sale"
            lines = [{"sku": s, "qty": rng.randrange(1, 4), "unit_price": p}
                     for s, p in rng.sample(SKUS, rng.randrange(1, 4))]
            txn = {"id": f"{store}-{seq:05d}", "store": store, "ts": local.isoformat(), "type": kind, "lines": lines,
                   "currency": "EUR"}
            if rng.random() < 0.03:
                txn["voided"] = True
            folder = spool / store / upload.isoformat()
            folder.mkdir(parents=True, exist_ok=True)
            name = f"{txn['id']}.json"
            body = json.dumps(txn)
            if rng.random() < 0.004:
                name += ".part"
                body = body[: len(body) // 2]
            (folder / name).write_text(body + ("\n" if not name.endswith(".part") else ""))
out.mkdir(parents=True, exist_ok=True)
for d in range(16, 23):  # last week's files, as the rollup wrote them
    totals = {s: {"transactions": rng.randrange(38, 62), "refunds": rng.randrange(0, 4),
                  "net_cents": rng.randrange(90000, 240000)} for s in stores}
    body = {"day": f"2026-11-{d}", "stores": totals, "net_cents": sum(t["net_cents"] for t in totals.values())}
    (out / f"2026-11-{d}.json").write_text(json.dumps(body, indent=2) + "\n")
