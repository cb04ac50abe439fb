"""Basket report: the weighted median basket value per region (weights = number of visits)."""
import csv
import json
import sys

import nwstats

if tuple(int(x) for x in nwstats.__version__.split(".")[:2]) < (2, 1):
    sys.exit(f"report.py needs nwstats>=2.1 (requirements.txt), found {nwstats.__version__}")

rows = list(csv.DictReader(open("baskets.csv", newline="")))
out = {}
for region in sorted({r["region"] for r in rows}):
    rs = [r for r in rows if r["region"] == region]
    out[region] = nwstats.weighted_median([float(r["basket_eur"]) for r in rs], [int(r["visits"]) for r in rs])
with open("out/basket-medians.json", "w") as f:
    json.dump({"nwstats": nwstats.__version__, "weighted_median_basket_eur": out}, f, indent=2, sort_keys=True)
    f.write("\n")
print(json.dumps(out))
