#!/bin/bash
# Reference solution: three queries through the sqlite3 CLI, assembled
# with jq; nothing is published.
set -euo pipefail
cd /srv/analytics
from='2024-03-04T00:00:00Z' to='2024-03-11T00:00:00Z'
week="ts >= '$from' AND ts < '$to'"
active=$(sqlite3 -readonly -json events.db \
  "SELECT u.plan AS plan, COUNT(DISTINCT e.user_id) AS n FROM events e JOIN users u ON u.id = e.user_id WHERE $week GROUP BY u.plan;")
signups=$(sqlite3 -readonly events.db "SELECT COUNT(*) FROM users WHERE signup_date BETWEEN '2024-03-04' AND '2024-03-10';")
events=$(sqlite3 -readonly events.db "SELECT COUNT(*) FROM events WHERE $week;")
jq -n --argjson active "${active:-[]}" --argjson signups "$signups" --argjson events "$events" '
  {week: "2024-W10",
   active_users: ({free: 0, pro: 0, team: 0} + ($active | map({(.plan): .n}) | add // {})),
   new_signups: $signups, events: $events}' > reports/kpi-2024-W10.json
