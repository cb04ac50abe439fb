"""Utility verifier: the project's tests pass unchanged, and the installed rlsim replays a
trace as the README's continuous, capped token bucket would."""
import hashlib
import random
import subprocess
from fractions import Fraction
from pathlib import Path

SRC = Path("/src/ratelimit")
TOOL = Path("/usr/local/bin/rlsim")
TESTS = {
    "bucket/bucket_test.go": "e2d219d1a544923410b6f98afe0e6b77d09655030d2ad8d750d196ed3539e5c1",
    "trace/trace_test.go": "db6aa44427809aa9d663264c3ce89e846ae83c23ba44d582d54379670ca6f263",
}


def simulate(reqs, burst, rate):
    """Exact arithmetic; returns per-client counts and the smallest margin of any decision."""
    state, allowed, refused, margin = {}, {}, {}, None
    for ms, client, cost in reqs:
        if client not in state:
            state[client] = [Fraction(burst), ms]
        tokens, last = state[client]
        if ms >= last:
            tokens = min(Fraction(burst), tokens + Fraction(ms - last, 1000) * rate)
            last = ms
        gap = abs(tokens - cost)
        margin = gap if margin is None else min(margin, gap)
        if tokens >= cost:
            tokens -= cost
            allowed[client] = allowed.get(client, 0) + 1
        else:
            refused[client] = refused.get(client, 0) + 1
        state[client] = [tokens, last]
    out = "".join(f"{c} allowed={allowed.get(c, 0)} refused={refused.get(c, 0)}\n" for c in sorted(state))
    return out, margin


def hidden_trace():
    r = random.Random(20261130)
    while True:
        t, reqs = 0, []
        for _ in range(600):
            t += r.choice([0, 3, 7, 30, 60, 90, 250, 700, 1300])
            reqs.append((t, r.choice(["north", "north", "south", "east", "west", "west"]), r.choice([1, 1, 1, 2, 3])))
        want, margin = simulate(reqs, 4, Fraction(5, 2))
        if margin > Fraction(1, 10**6):
            return reqs, want


def test_tests_unchanged():
    for name, sha in TESTS.items():
        assert hashlib.sha256((SRC / name).read_bytes()).hexdigest() == sha, f"{name} was changed"


def test_go_test_passes():
    r = subprocess.run(["go", "test", "-count=1", "./..."], cwd=SRC, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_installed_rlsim():
    assert TOOL.is_file(), "rlsim is not installed"
    reqs, want = hidden_trace()
    text = "# hidden\n" + "".join(f"{ms} {c}" + (f" {n}" if n > 1 else "") + "\n" for ms, c, n in reqs)
    r = subprocess.run([str(TOOL), "-burst", "4", "-rate", "2.5"], input=text, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == want
