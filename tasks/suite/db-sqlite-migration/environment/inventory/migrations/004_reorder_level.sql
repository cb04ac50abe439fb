ALTER TABLE items ADD COLUMN reorder_level INTEGER NOT NULL DEFAULT 5;
CREATE VIEW low_stock AS
    SELECT items.sku, items.name, items.qty, suppliers.name AS supplier
    FROM items LEFT JOIN suppliers ON suppliers.id = items.supplier_id
    WHERE items.qty <= items.reorder_level;
