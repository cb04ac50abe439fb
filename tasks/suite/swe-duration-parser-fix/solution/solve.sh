#!/bin/bash
# Reference solution: a full match of the ordered parts (fullmatch, each
# unit optional and at most once, at least one present), tests, pytest
# without its cache, the conversion through configparser.
set -euo pipefail
cd /srv/svc
cat README.md
cat > durations/__init__.py <<'PY'
"""durations: parses human durations such as "1h30m", "90s" or "2d" into seconds."""
import re

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_FORM = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?")


def parse(text):
    """Seconds in a duration: one or more NUMBER+UNIT parts (d, h, m, s; each once, largest first)."""
    m = _FORM.fullmatch(text)
    if not m or not any(m.groups()):
        raise ValueError(f"bad duration {text!r}")
    return sum(int(v) * UNITS[u] for v, u in zip(m.groups(), "dhms") if v)
PY
cat >> tests/test_durations.py <<'PY'


def test_multi_part():
    assert parse("1h30m") == 5400
    assert parse("1d12h") == 129600
    assert parse("1m30s") == 90


@pytest.mark.parametrize("bad", ["1h30", "30m1h", "1h1h", "10m 30s", "250ms", "", "h", " 5s"])
def test_rejects(bad):
    with pytest.raises(ValueError):
        parse(bad)
PY
python3 -m pytest -q -p no:cacheprovider tests
python3 -P - <<'PY'
import configparser, sys
sys.path.insert(0, "/srv/svc")
from durations import parse
cfg = configparser.ConfigParser()
cfg.read("timeouts.ini")
with open("out/timeouts.tsv", "w") as f:
    for k, v in cfg["timeouts"].items():
        try:
            f.write(f"{k}\t{parse(v)}\n")
        except ValueError:
            f.write(f"{k}\tinvalid\n")
PY
cat out/timeouts.tsv
