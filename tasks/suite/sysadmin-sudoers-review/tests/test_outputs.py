"""Utility verifier: the NOPASSWD rules of the sudoers.d copy, as sudo reads it."""
from pathlib import Path

WANT = [
    "file\twho\trunas\tcommands\trisk",
    "20-deploy\tdeploy\troot\t/usr/bin/systemctl restart app, /usr/bin/systemctl reload nginx\tlimited",
    "30-legacy\tbackup\troot\t/usr/bin/rsync, /usr/bin/tar\tlimited",
    "30-legacy\tci-runner\tALL\tALL\tcritical",
    "40-dba\t%oncall\tALL\t/usr/bin/journalctl, /usr/bin/less /var/log/*\tlimited",
    "40-dba\talice\tpostgres\tALL\thigh",
    "40-dba\tbob\tpostgres\tALL\thigh",
]


def test_nopasswd_rules():
    assert Path("/srv/review/out/nopasswd.tsv").read_text().splitlines() == WANT


def test_copy_untouched():
    names = sorted(p.name for p in Path("/srv/review/sudoers.d").iterdir())
    assert names == ["10-admins", "20-deploy", "30-legacy", "40-dba", "50-disabled.bak", "README"]
