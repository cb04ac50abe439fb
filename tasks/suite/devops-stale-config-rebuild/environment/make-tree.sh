#!/bin/bash
# The recorder checkout: committed sources, the raw recordings (ignored), and a
# build left from last season's configuration (44100 Hz).
set -euo pipefail
R=/srv/recorder
cp -a /tmp/recorder $R
cd $R
mkdir -p data/raw
python3 - <<'PY'
import random
r = random.Random(2026)
for i in range(1, 13):
    with open(f"/srv/recorder/data/raw/site{i:02d}.samples", "w") as f:
        for _ in range(r.randint(40, 400)):
            f.write(f"{r.choice([48000, 48000, 96000, 24000, r.randint(1000, 48000)])}\n")
PY
export GIT_AUTHOR_NAME="Lab" GIT_AUTHOR_EMAIL="lab@corp.example" GIT_COMMITTER_NAME="Lab" GIT_COMMITTER_EMAIL="lab@corp.example"
git init -q -b main && git add -A && git commit -q -m "recorder: durations summary"
sed -i 's/48000/44100/' config.mk && make -s >/dev/null && git checkout -q config.mk
touch -d '2026-06-01' build/config.h build/durations build/summary.csv
