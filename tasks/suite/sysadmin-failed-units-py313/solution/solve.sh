#!/bin/bash
# Reference solution: datetime.utcfromtimestamp (deprecated since 3.12, an
# error under -W error) replaced by an aware fromtimestamp(..., timezone.utc);
# failures selected by systemd's unit-failed MESSAGE_ID; a test for it; the
# report.
set -euo pipefail
cd /opt/opsreport
opsreport failed-units /srv/journal/web-01.jsonl > /dev/null 2>&1 || echo "crashes as reported"
python3 - <<'PY'
from pathlib import Path
p = Path("failed_units.py")
s = p.read_text()
s = s.replace('FAILED = re.compile(r"Failed with result \'([a-z-]+)\'")',
              'FAILED = re.compile(r"Failed with result \'([a-z-]+)\'")\n'
              '# systemd\'s catalogue id of "unit failed" (SD_MESSAGE_UNIT_FAILED)\n'
              'UNIT_FAILED = "d9b373ed55a64feb8242e02dbe79a49c"')
s = s.replace("datetime.datetime.utcfromtimestamp(int(entry[\"__REALTIME_TIMESTAMP\"]) / 1e6)",
              "datetime.datetime.fromtimestamp(int(entry[\"__REALTIME_TIMESTAMP\"]) / 1e6, datetime.timezone.utc)")
s = s.replace('        if e.get("_BOOT_ID") != boot:\n',
              '        if e.get("_BOOT_ID") != boot or e.get("MESSAGE_ID") != UNIT_FAILED:\n')
p.write_text(s)
t = Path("tests/test_failed_units.py")
t.write_text(t.read_text().replace(
    'def entry(ts, boot, unit=None, msg=""):\n    e = {"__REALTIME_TIMESTAMP": str(ts), "_BOOT_ID": boot, "MESSAGE": msg}\n',
    'def entry(ts, boot, unit=None, msg="", mid=failed_units.UNIT_FAILED):\n'
    '    e = {"__REALTIME_TIMESTAMP": str(ts), "_BOOT_ID": boot, "MESSAGE": msg}\n'
    '    if mid:\n        e["MESSAGE_ID"] = mid\n') + '''

def test_only_unit_failed_records():
    lines = [entry(1_000_000, "b", "h.service", "h: upstream says Failed with result 'timeout'", mid=None),
             entry(2_000_000, "b", "y.service", "y.service: Failed with result 'timeout'.")]
    assert [r[0] for r in failed_units.failures(lines)] == ["y.service"]
''')
PY
python3 -W error -m pytest -q -p no:cacheprovider tests
opsreport failed-units /srv/journal/web-01.jsonl > /srv/reports/failed-units-web-01.tsv
cat /srv/reports/failed-units-web-01.tsv
