"""Utility verifier: the German catalogue joins the catalogue with the agency's Latin-1 translations."""
from pathlib import Path

CATALOG = Path("/srv/shop/catalog/products.tsv")
VENDOR = Path("/srv/shop/incoming/uebersetzungen_de.csv")
OUT = Path("/srv/shop/catalog/products-de.tsv")


def expected():
    de = {}
    for line in VENDOR.read_bytes().decode("latin-1").splitlines()[1:]:
        sku, name = line.split(";", 1)
        de[sku] = name
    rows = []
    for line in CATALOG.read_text(encoding="utf-8").splitlines()[1:]:
        sku, en, price = line.split("\t")
        rows.append("\t".join([sku, en, de.get(sku, en), price]))
    return ["sku\tname_en\tname_de\tprice_eur"] + sorted(rows)


def test_german_catalogue():
    raw = OUT.read_bytes()
    assert b"\r" not in raw
    got = raw.decode("utf-8").splitlines()
    want = expected()
    assert len(want) > 30
    assert got == want
    assert sum("ä" in l or "ö" in l or "ü" in l or "ß" in l for l in got) >= 8


def test_inputs_untouched():
    assert VENDOR.read_bytes().count(b"\r\n") == 39
    assert CATALOG.read_text().count("\n") == 41
