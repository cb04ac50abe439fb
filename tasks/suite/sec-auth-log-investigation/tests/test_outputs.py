"""Utility verifier: the brute-force sources and the one that got in."""
from pathlib import Path

INCIDENT = Path("/root/incident")


def lines(name):
    return [l.split() for l in (INCIDENT / name).read_text().splitlines() if l.strip()]


def test_bruteforce_sources():
    assert lines("bruteforce.txt") == [["37", "203.0.113.45"], ["22", "198.51.100.23"], ["12", "192.0.2.77"]]


def test_compromised_source():
    assert lines("compromised.txt") == [["198.51.100.23", "deploy"]]
