"""Generates the media volume's originals, thumbnails, uploads and logs (run at build time)."""
import gzip
import json
import os
import random
import time
from pathlib import Path

M = Path("/srv/media")
r = random.Random(20261202)
now = time.time()
ids = [f"p{n:05d}" for n in r.sample(range(10000, 99999), 140)]
deleted = set(r.sample(ids, 37))
for i in ids:
    ext = r.choice(["jpg", "jpg", "jpg", "heic", "png"])
    if i not in deleted:
        p = M / "originals" / i[1:3] / f"{i}.{ext}"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(os.urandom(r.randint(2000, 9000)))
        age = r.choice([3, 40, 200, 500, 800, 1200])
        os.utime(p, (now - age * 86400, now - age * 86400))
    for size in r.sample(["s", "m", "l"], r.randint(1, 3)):
        t = M / "cache" / "thumbs" / f"{i}_{size}.jpg"
        t.parent.mkdir(parents=True, exist_ok=True)
        t.write_bytes(os.urandom(r.randint(300, 1500)))
# a thumbnail whose id is a prefix of an existing original's is still an orphan
t = M / "cache" / "thumbs" / f"{ids[0][:-1]}_m.jpg"
t.write_bytes(os.urandom(500))
inc = M / "incoming"
inc.mkdir(parents=True)
sessions = [f"up-{r.getrandbits(40):010x}" for _ in range(12)]
open_ = sessions[:5]
for s in sessions:
    (inc / f"{s}.part").write_bytes(os.urandom(r.randint(1000, 20000)))
(inc / "sessions.json").write_text(json.dumps({"open": [{"session": s, "user": f"u{r.randint(100, 999)}"} for s in open_]}, indent=2) + "\n")
logs = M / "logs"
logs.mkdir()
(logs / "photod.log").write_text("2026-12-02T03:00:00Z photod started\n")
for n in range(1, 10):
    with gzip.open(logs / f"photod.log.{n}.gz", "wt") as f:
        f.write(f"rotation {n}\n" * 200)
# older rotation mtimes are misleading: rotation 2 was touched last by a log shipper
for n in range(1, 10):
    t = now - (n * 86400 if n != 2 else 3600)
    os.utime(logs / f"photod.log.{n}.gz", (t, t))
