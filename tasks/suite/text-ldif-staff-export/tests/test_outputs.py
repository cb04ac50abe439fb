"""Utility verifier: staff.csv holds the current people of the export with unfolded, decoded values."""
import csv
from pathlib import Path

OUT = Path("/srv/hr/reports/staff.csv")
WANT = [
    ["uid", "name", "email", "department", "manager"],
    ["adeyemi", "Tolu Adeyemi", "tolu.adeyemi@corp.example", "Finance", "mkowalski"],
    ["bchen", "Bo Chen", "bo.chen@corp.example", "Engineering", "ssato"],
    ["cgarcia", "Carmen García", "carmen.garcia@corp.example", "Sales, EMEA", "mkowalski"],
    ["dmueller", "Dörte Müller", "doerte.mueller@corp.example", "Engineering", "ssato"],
    ["fnakamura", "Fumiko Nakamura", "fumiko.nakamura@corp.example", "Engineering", "ssato"],
    ["gokafor", 'Grace "Gigi" Okafor', "grace.okafor@corp.example", "Legal", "mkowalski"],
    ["mkowalski", "Marta Kowalski", "marta.kowalski@corp.example", "Management", ""],
    ["ssato", "Shin Sato", "shin.sato@corp.example", "Engineering", "mkowalski"],
    ["zsmith", "Zoë Smith-Ångström", "zoe.smith@corp.example",
     "Research & Development, Long-Range Planning and Strategic Forecasting Unit", "ssato"],
]


def test_staff_csv():
    with open(OUT, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows == WANT


def test_no_secrets():
    text = OUT.read_text(encoding="utf-8")
    assert "SSHA" not in text and "e1NTSEF9" not in text
