"""Utility verifier: opsreport works under Python 3.13 with -W error and counts only unit-failed records."""
import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

UNIT_FAILED = "d9b373ed55a64feb8242e02dbe79a49c"
JOURNAL = Path("/srv/journal/web-01.jsonl")


def expected():
    entries = [json.loads(l) for l in JOURNAL.read_text().splitlines() if l.strip()]
    boot = entries[-1]["_BOOT_ID"]
    units = {}
    for e in entries:
        if e["_BOOT_ID"] != boot or e.get("MESSAGE_ID") != UNIT_FAILED:
            continue
        t = datetime.fromtimestamp(int(e["__REALTIME_TIMESTAMP"]) / 1e6, timezone.utc)
        result = e["MESSAGE"].split("Failed with result '")[1].split("'")[0]
        first, res, n = units.get(e["UNIT"], (t, result, 0))
        units[e["UNIT"]] = (first, res, n + 1)
    rows = sorted(units.items(), key=lambda kv: (kv[1][0], kv[0]))
    return ["unit\tresult\tfirst_failure_utc\tcount"] + [
        f"{u}\t{r}\t{f.strftime('%Y-%m-%dT%H:%M:%SZ')}\t{n}" for u, (f, r, n) in rows]


def test_runs_on_python_313():
    assert sys.version_info[:2] == (3, 13)
    assert Path("/usr/local/bin/python3").resolve() == Path("/usr/bin/python3.13")


def test_report():
    want = expected()
    assert len(want) == 5
    assert not any(l.startswith(("healthcheck", "backup")) for l in want)
    assert Path("/srv/reports/failed-units-web-01.tsv").read_text().splitlines() == want


def test_tool_still_strict_and_correct():
    wrapper = Path("/opt/opsreport/opsreport").read_text()
    assert "-W error" in wrapper
    run = subprocess.run(["opsreport", "failed-units", str(JOURNAL)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    assert run.stdout.splitlines() == expected()


def test_tool_tests_pass_and_cover_the_rule():
    tests = Path("/opt/opsreport/tests").read_text() if Path("/opt/opsreport/tests").is_file() else \
        "".join(p.read_text() for p in Path("/opt/opsreport/tests").glob("test_*.py"))
    assert tests.count("def test_") >= 3
    run = subprocess.run([sys.executable, "-W", "error", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                         cwd="/opt/opsreport", capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:]
