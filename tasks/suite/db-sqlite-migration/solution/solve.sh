#!/bin/bash
set -euo pipefail
cd /srv/inventory
mkdir -p backups
sqlite3 inventory.db ".backup backups/inventory-pre-2.4.db"
./migrate.py --status
./migrate.py
./migrate.py --status
