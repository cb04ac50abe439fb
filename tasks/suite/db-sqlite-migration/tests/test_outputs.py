"""Utility verifier: the database is migrated, nothing was lost, the backup is the old schema."""
import sqlite3
from pathlib import Path

DB = Path("/srv/inventory/inventory.db")
BACKUP = Path("/srv/inventory/backups/inventory-pre-2.4.db")

ITEMS = {
    "BOLT-M6": 420, "NUT-M6": 980, "WSH-M6": 3, "DRL-10": 12,
    "DRL-8": 4, "CBL-2X1": 150, "CBL-3X2": 0, "TPE-INS": 5,
}


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_all_migrations_applied():
    assert [v for (v,) in rows(DB, "SELECT version FROM schema_migrations ORDER BY version")] == [1, 2, 3, 4]


def test_schema_is_current():
    cols = [r[1] for r in rows(DB, "PRAGMA table_info(items)")]
    assert "reorder_level" in cols and "supplier_id" in cols
    assert rows(DB, "SELECT name FROM sqlite_master WHERE type='index' AND name='items_sku'")
    assert rows(DB, "SELECT name FROM sqlite_master WHERE type='view' AND name='low_stock'")


def test_no_data_lost():
    got = dict(rows(DB, "SELECT sku, qty FROM items"))
    assert got == ITEMS
    assert rows(DB, "SELECT count(*) FROM suppliers") == [(3,)]
    assert rows(DB, "SELECT count(*) FROM items WHERE supplier_id IS NOT NULL") == [(7,)]
    low = {r[0] for r in rows(DB, "SELECT sku FROM low_stock")}
    assert low == {"WSH-M6", "DRL-8", "CBL-3X2", "TPE-INS"}


def test_backup_is_pre_migration():
    assert BACKUP.is_file()
    assert [v for (v,) in rows(BACKUP, "SELECT version FROM schema_migrations ORDER BY version")] == [1, 2]
    assert rows(BACKUP, "SELECT count(*) FROM items") == [(8,)]
    assert "reorder_level" not in [r[1] for r in rows(BACKUP, "PRAGMA table_info(items)")]
