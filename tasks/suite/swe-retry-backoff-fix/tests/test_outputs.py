"""Utility verifier: call_with_retry follows its docstring on the recorded cases (as shipped, not
re-recorded) and on cases the project does not have; the project's tests pass."""
import importlib
import json
import subprocess
import sys

PROJECT = "/home/dev/wxclient"
FIXTURES = "[\n  {\"name\": \"first try works\", \"attempts\": 3, \"outcomes\": [\"ok\"],\n   \"expect\": {\"calls\": 1, \"sleeps\": [], \"result\": \"forecast\"}},\n  {\"name\": \"two connection resets, then ok\", \"attempts\": 3, \"outcomes\": [\"conn\", \"conn\", \"ok\"],\n   \"expect\": {\"calls\": 3, \"sleeps\": [0.5, 1.0], \"result\": \"forecast\"}},\n  {\"name\": \"gives up after three attempts\", \"attempts\": 3, \"outcomes\": [\"503\", \"502\", \"500\", \"ok\"],\n   \"expect\": {\"calls\": 3, \"sleeps\": [0.5, 1.0], \"result\": \"raised HTTPError: HTTP 500\"}},\n  {\"name\": \"client errors are not retried\", \"attempts\": 3, \"outcomes\": [\"404\", \"ok\"],\n   \"expect\": {\"calls\": 1, \"sleeps\": [], \"result\": \"raised HTTPError: HTTP 404\"}},\n  {\"name\": \"rate limited, server says when\", \"attempts\": 4, \"outcomes\": [\"429/7\", \"503\", \"ok\"],\n   \"expect\": {\"calls\": 3, \"sleeps\": [7, 1.0], \"result\": \"forecast\"}},\n  {\"name\": \"five attempts back off exponentially\", \"attempts\": 5, \"outcomes\": [\"conn\", \"conn\", \"conn\", \"conn\", \"conn\"],\n   \"expect\": {\"calls\": 5, \"sleeps\": [0.5, 1.0, 2.0, 4.0], \"result\": \"raised ConnectionError: connection reset\"}}\n]\n"
HIDDEN = [
    ("no retry on 401", 3, ["401", "ok"], {"calls": 1, "sleeps": [], "result": "raised HTTPError: HTTP 401"}),
    ("one attempt only", 1, ["503", "ok"], {"calls": 1, "sleeps": [], "result": "raised HTTPError: HTTP 503"}),
    ("retry-after on 503", 3, ["503/2", "503/30", "ok"], {"calls": 3, "sleeps": [2, 30], "result": "forecast"}),
    ("mixed errors", 4, ["conn", "500", "429", "ok"], {"calls": 4, "sleeps": [0.5, 1.0, 2.0], "result": "forecast"}),
    ("4xx after a retry", 4, ["502", "403", "ok"], {"calls": 2, "sleeps": [0.5], "result": "raised HTTPError: HTTP 403"}),
]


def record():
    sys.path.insert(0, PROJECT)
    for m in [m for m in sys.modules if m.startswith("wxclient")]:
        del sys.modules[m]
    return importlib.import_module("wxclient.record")


def test_shipped_cases():
    import json
    rec = record()
    for case in json.loads(FIXTURES):
        assert rec.run_case(case) == case["expect"], case["name"]


def test_hidden_cases():
    rec = record()
    for name, attempts, outcomes, expect in HIDDEN:
        assert rec.run_case({"attempts": attempts, "outcomes": outcomes}) == expect, name


def test_project_tests_pass_with_shipped_fixtures():
    import hashlib
    from pathlib import Path
    assert hashlib.sha256(Path(PROJECT, "tests/fixtures/retry_cases.json").read_bytes()).hexdigest() == "208504cf2c5d8ce03539767a2123cd8c367afb851fbb4069527abbc6924c4288"
    assert hashlib.sha256(Path(PROJECT, "tests/test_retry.py").read_bytes()).hexdigest() == "06038844de0978b57745710d857104138b7beff7acfb8d562ce086415928b66a"
    r = subprocess.run([sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=PROJECT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:]
