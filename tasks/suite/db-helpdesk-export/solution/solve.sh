#!/bin/bash
set -euo pipefail
cd /srv/helpdesk
sqlite3 -readonly helpdesk.db <<'SQL'
.headers on
.mode csv
.once /srv/share/deskly-import/open-tickets.csv
SELECT t.id AS ticket_id,
       c.email AS customer_email,
       t.subject,
       t.status,
       t.opened_at,
       (SELECT CAST((julianday(min(m.sent_at)) - julianday(t.opened_at)) * 1440 + 0.5 AS INTEGER)
          FROM messages m WHERE m.ticket_id = t.id AND m.author = 'agent') AS first_response_min,
       coalesce((SELECT group_concat(value, ';')
                   FROM (SELECT j.value FROM json_each(t.tags) j ORDER BY j.value)), '') AS tags
FROM tickets t JOIN customers c ON c.id = t.customer_id
WHERE t.status <> 'closed'
ORDER BY t.id;
SQL
wc -l /srv/share/deskly-import/open-tickets.csv
