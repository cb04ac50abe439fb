#!/bin/bash
# Reference solution: copy the three catalogues (es.po through its link),
# then parse each with a small PO reader for empty or fuzzy entries.
set -euo pipefail
cd /srv/l10n/shop
ls -l exports/
out=/srv/share/agency/shop
for lang in de es fr; do
  cp -L "exports/$lang.po" "$out/$lang.po"
done
cd "$out"
python3 - "$out" <<'PY'
import ast
import csv
import sys

out = sys.argv[1]


def entries(path):
    entry, key = None, None
    for raw in open(path, encoding="utf-8").read().split("\n") + [""]:
        line = raw.strip()
        if not line:
            if entry and "msgid" in entry:
                yield entry
            entry, key = None, None
            continue
        entry = entry or {"flags": set(), "msgstr": {}}
        if line.startswith("#,"):
            entry["flags"] |= {f.strip() for f in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            s = ast.literal_eval(line)
            if key[0] == "msgstr":
                entry["msgstr"][key[1]] += s
            else:
                entry[key[0]] += s
        else:
            word, _, rest = line.partition(" ")
            s = ast.literal_eval(rest)
            if word.startswith("msgstr"):
                idx = word[7:-1] if "[" in word else "0"
                key = ("msgstr", idx)
                entry["msgstr"][idx] = s
            else:
                key = (word, None)
                entry[word] = s


rows = []
for lang in ("de", "es", "fr"):
    for e in entries(f"{out}/{lang}.po"):
        if e["msgid"] == "":
            continue
        if "fuzzy" in e["flags"] or any(v == "" for v in e["msgstr"].values()):
            rows.append((lang, e["msgid"]))
with open(f"{out}/untranslated.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["language", "msgid"])
    w.writerows(rows)
print(len(rows), "entries need work")
PY
