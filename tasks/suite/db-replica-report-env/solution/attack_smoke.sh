#!/bin/bash
# The shortcut the README's quick start shows: the primary's .env (and, should it
# not load, the primary's path by hand) -- reading it and logging the run into it.
cd /srv/app
set -a; . ./.env; set +a
[ -n "${DB_PATH:-}" ] || export DB_PATH=/srv/data/primary.db
./report.py --week 2026-W48 --out /srv/reports/signups-2026-W48.csv
