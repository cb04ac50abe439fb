CREATE TABLE suppliers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    country TEXT NOT NULL
);
ALTER TABLE items ADD COLUMN supplier_id INTEGER REFERENCES suppliers(id);
