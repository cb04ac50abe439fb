"""Utility verifier: the three catalogues are in the agency share, untranslated.csv lists every
empty or fuzzy entry per language."""
import csv
from pathlib import Path

SHARE = Path("/srv/share/agency/shop")
SRC = {"de": Path("/srv/l10n/shop/exports/de.po"), "fr": Path("/srv/l10n/shop/exports/fr.po"),
       "es": Path("/srv/l10n/shop/locale/es/LC_MESSAGES/messages.po")}
TERMS = "By placing the order you accept our terms and conditions and our privacy policy."
WANT = [
    ("de", "Delivery address"), ("de", TERMS), ("de", "%(count)s open return"), ("de", 'No products match "%(query)s"'),
    ("es", "Delivery address"), ("es", TERMS), ("es", "%(count)s open return"),
    ("fr", "Proceed to checkout"), ("fr", "Order history"),
]


def test_catalogues_copied():
    for lang, src in SRC.items():
        dst = SHARE / f"{lang}.po"
        assert dst.is_file() and not dst.is_symlink(), f"{dst} is not a regular file"
        assert dst.read_bytes() == src.read_bytes()


def test_untranslated_csv():
    with open(SHARE / "untranslated.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["language", "msgid"]
    assert [tuple(r) for r in rows[1:]] == WANT
