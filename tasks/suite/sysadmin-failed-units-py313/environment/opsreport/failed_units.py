"""failed_units — systemd units that failed during the last boot of a host.

Reads a `journalctl -o json` export (one JSON object per line) and prints a
tab-separated table: unit, result, first failure (UTC), failure count —
units in order of their first failure."""
import datetime
import json
import re
import sys

FAILED = re.compile(r"Failed with result '([a-z-]+)'")


def when(entry):
    """The entry's wall-clock time, in UTC."""
    return datetime.datetime.utcfromtimestamp(int(entry["__REALTIME_TIMESTAMP"]) / 1e6)


def failures(lines):
    entries = [json.loads(l) for l in lines if l.strip()]
    if not entries:
        return []
    boot = entries[-1]["_BOOT_ID"]
    units = {}
    for e in entries:
        if e.get("_BOOT_ID") != boot:
            continue
        m = FAILED.search(e.get("MESSAGE", ""))
        unit = e.get("UNIT")
        if not m or not unit:
            continue
        first, result, count = units.get(unit, (when(e), m.group(1), 0))
        units[unit] = (first, result, count + 1)
    return sorted(((u, r, f, n) for u, (f, r, n) in units.items()), key=lambda t: (t[2], t[0]))


def main(argv):
    with open(argv[1]) as f:
        rows = failures(f)
    print("unit\tresult\tfirst_failure_utc\tcount")
    for unit, result, first, count in rows:
        print(f"{unit}\t{result}\t{first.strftime('%Y-%m-%dT%H:%M:%SZ')}\t{count}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
