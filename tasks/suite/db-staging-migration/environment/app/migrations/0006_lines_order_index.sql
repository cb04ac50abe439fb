CREATE INDEX idx_order_lines_order ON order_lines(order_id);
