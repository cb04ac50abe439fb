"""Utility verifier: durations.parse to its README, new tests, the converted timeouts."""
import subprocess
import sys
from pathlib import Path

CASES = {"90s": 90, "2d": 172800, "1h30m": 5400, "1d12h": 129600, "1m30s": 90, "1d2h3m4s": 93784, "0s": 0}
BAD = ["1h30", "30m1h", "1h1h", "10m 30s", "250ms", "", "h", "1H", "-5s", "1.5h", "5s\n"]


def run(code):
    return subprocess.run([sys.executable, "-c", code], cwd="/srv/svc", capture_output=True, text=True)


def test_parse_cases():
    code = "from durations import parse\n" + "".join(f"assert parse({k!r}) == {v}, {k!r}\n" for k, v in CASES.items())
    r = run(code)
    assert r.returncode == 0, r.stderr


def test_parse_rejects():
    code = ("from durations import parse\nbad = []\nfor s in %r:\n    try:\n        parse(s)\n        bad.append(s)\n"
            "    except ValueError:\n        pass\nassert not bad, bad\n") % (BAD,)
    r = run(code)
    assert r.returncode == 0, r.stderr


def test_suite_and_new_tests():
    text = Path("/srv/svc/tests/test_durations.py").read_text()
    assert text.count("def test_") >= 4
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd="/srv/svc",
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:]


def test_timeouts():
    want = ["connect\t5", "read\t90", "idle\t7200", "session\t129600", "retry_backoff\tinvalid", "drain\tinvalid"]
    assert Path("/srv/svc/out/timeouts.tsv").read_text().splitlines() == want
