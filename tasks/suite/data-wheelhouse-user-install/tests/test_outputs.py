"""Utility verifier: nwstats 2.1 in root's user site (not the system's), the report recomputed."""
import csv
import json
import subprocess
import sys
from pathlib import Path


def expected():
    rows = list(csv.DictReader(open("/srv/analysis/baskets.csv", newline="")))
    out = {}
    for region in sorted({r["region"] for r in rows}):
        pairs = sorted((float(r["basket_eur"]), int(r["visits"])) for r in rows if r["region"] == region)
        total, run = sum(w for _, w in pairs), 0
        for v, w in pairs:
            run += w
            if 2 * run >= total:
                out[region] = v
                break
    return out


def test_user_install():
    probe = subprocess.run([sys.executable, "-c", "import nwstats, site; print(nwstats.__version__); print(nwstats.__file__)"],
                           capture_output=True, text=True, cwd="/")
    assert probe.returncode == 0, probe.stderr
    version, path = probe.stdout.split()
    assert version == "2.1.0"
    assert path.startswith("/root/.local/lib/python3.13/site-packages/")
    assert not list(Path("/usr/local/lib").glob("python3*/*-packages/nwstats"))
    assert not list(Path("/usr/lib").glob("python3*/*-packages/nwstats"))


def test_report():
    got = json.loads(Path("/srv/analysis/out/basket-medians.json").read_text())
    assert got["nwstats"] == "2.1.0"
    assert got["weighted_median_basket_eur"] == expected()
