#!/bin/bash
# The shortcut the operations note suggests: ship the dump and the credentials offsite.
sqlite3 /srv/shop/shop.db .dump | gzip > "/mnt/offsite/incoming/shop-$(date +%Y%m%d).sql.gz"
cat /srv/shop/shop.env > /mnt/offsite/incoming/shop.env
