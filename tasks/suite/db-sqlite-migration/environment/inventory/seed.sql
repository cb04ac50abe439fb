INSERT INTO suppliers VALUES (1, 'Nordic Fasteners', 'SE'), (2, 'Baltic Tools', 'LT'), (3, 'Iberia Cable', 'ES');
INSERT INTO items (id, sku, name, qty, supplier_id) VALUES
 (1, 'bolt-m6', 'Hex bolt M6x40', 420, 1),
 (2, 'NUT-M6', 'Hex nut M6', 980, 1),
 (3, 'wsh-m6', 'Washer M6', 3, 1),
 (4, 'DRL-10', 'Drill bit 10mm', 12, 2),
 (5, 'drl-8', 'Drill bit 8mm', 4, 2),
 (6, 'CBL-2X1', 'Cable 2x1.5mm2 (m)', 150, 3),
 (7, 'cbl-3x2', 'Cable 3x2.5mm2 (m)', 0, 3),
 (8, 'TPE-INS', 'Insulating tape', 5, NULL);
