PRAGMA foreign_keys = ON;
CREATE TABLE carriers (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE);
CREATE TABLE shipments (
    shipment_id TEXT PRIMARY KEY,
    carrier_id INTEGER NOT NULL REFERENCES carriers(id),
    weight_kg REAL NOT NULL CHECK (weight_kg > 0),
    shipped_on TEXT NOT NULL CHECK (shipped_on = date(shipped_on, '+0 days'))
);
INSERT INTO carriers (id, code) VALUES (1, 'DHL'), (2, 'UPS'), (3, 'DPD'), (4, 'GLS');
INSERT INTO shipments VALUES
 ('SHP-10001', 1, 3.2, '2026-11-20'), ('SHP-10002', 2, 11.0, '2026-11-21'), ('SHP-10003', 3, 0.8, '2026-11-21'),
 ('SHP-10004', 4, 25.5, '2026-11-22'), ('SHP-10005', 1, 7.25, '2026-11-23');
