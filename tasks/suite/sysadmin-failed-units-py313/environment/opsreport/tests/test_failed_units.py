import datetime
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import failed_units  # noqa: E402


def entry(ts, boot, unit=None, msg=""):
    e = {"__REALTIME_TIMESTAMP": str(ts), "_BOOT_ID": boot, "MESSAGE": msg}
    if unit:
        e["UNIT"] = unit
    return json.dumps(e)


def test_last_boot_only():
    lines = [entry(1_000_000, "a", "x.service", "x.service: Failed with result 'exit-code'."),
             entry(2_000_000, "b", "y.service", "y.service: Failed with result 'timeout'.")]
    assert [r[0] for r in failed_units.failures(lines)] == ["y.service"]


def test_first_failure_is_utc():
    lines = [entry(1_764_720_000_000_000, "b", "y.service", "y.service: Failed with result 'timeout'.")]
    first = failed_units.failures(lines)[0][2]
    assert first.strftime("%Y-%m-%dT%H:%M:%SZ") == "2025-12-03T00:00:00Z"
