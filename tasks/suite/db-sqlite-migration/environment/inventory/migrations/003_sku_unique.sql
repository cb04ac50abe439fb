-- SKUs are case-insensitive codes; store them upper case and enforce uniqueness.
UPDATE items SET sku = upper(sku);
CREATE UNIQUE INDEX items_sku ON items(sku);
