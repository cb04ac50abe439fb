-- Late deliveries per carrier for shipments sent in November 2026
-- (the carrier review). A shipment is late when its last "delivered" scan
-- is after the promised time; one never delivered is not counted late.
SELECT c.name AS carrier,
       count(*) AS shipments,
       sum((SELECT max(t.ts) FROM tracking t WHERE t.shipment_id = s.id AND t.status = 'delivered') > s.promised_at) AS late,
       round(100.0 * sum((SELECT max(t.ts) FROM tracking t WHERE t.shipment_id = s.id AND t.status = 'delivered') > s.promised_at)
             / count(*), 1) AS late_pct
FROM shipments s
JOIN carriers c ON c.id = s.carrier_id
WHERE s.shipped_at >= '2026-11-01' AND s.shipped_at < '2026-12-01'
GROUP BY c.name
ORDER BY c.name;
