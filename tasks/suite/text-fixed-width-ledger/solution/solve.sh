#!/bin/bash
# Reference solution: python3 -P slices by character (the description may
# hold multi-byte UTF-8, so byte offsets such as cut -b would shift), the
# implied decimals and sign, csv quoting, the trailer check.
set -euo pipefail
cd /srv/feed
cat LAYOUT.txt
python3 -P - <<'PY'
import csv, sys
details, trailer = [], None
for line in open("gl-20261202.dat", encoding="utf-8"):
    line = line.rstrip("\n")
    if line[:2] == "01":
        cents = int(line[50:61])
        sign = -1 if line[61] == "-" else 1
        details.append([line[2:12], f"{line[12:16]}-{line[16:18]}-{line[18:20]}", line[20:50].rstrip(),
                        f"{sign * cents / 100:.2f}" if sign > 0 else f"-{cents / 100:.2f}", line[62:65]])
    elif line[:2] == "99":
        trailer = int(line[2:12])
if trailer != len(details):
    sys.exit(f"trailer says {trailer} details, found {len(details)}")
with open("out/gl-20261202.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["account", "date", "description", "amount", "currency"])
    w.writerows(details)
print(len(details), "records")
PY
