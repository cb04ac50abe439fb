#!/bin/bash
set -euo pipefail
cd /srv/ci/pipelines/7731
python3 - <<'PY'
import collections
import glob
import xml.etree.ElementTree as ET

broken = collections.defaultdict(set)
for path in sorted(glob.glob("*/junit*.xml")):
    job = path.split("/")[0]
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            broken[f"{case.get('classname')}.{case.get('name')}"].add(job)
with open("failures.tsv", "w") as out:
    out.write("test\tjobs\n")
    for test, jobs in sorted(broken.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        out.write(f"{test}\t{','.join(sorted(jobs))}\n")
PY
cat failures.tsv
