"""durations: parses human durations such as "1h30m", "90s" or "2d" into seconds."""
import re

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse(text):
    """Seconds in a duration: one or more NUMBER+UNIT parts (s, m, h, d), e.g. "1h30m"."""
    m = re.match(r"(\d+)([smhd])", text)
    if not m:
        raise ValueError(f"bad duration {text!r}")
    return int(m.group(1)) * UNITS[m.group(2)]
