#!/bin/bash
set -euo pipefail
cat > /usr/local/bin/shop-backup <<'SH'
#!/bin/sh
# Nightly backup of the shop database: a gzip-compressed SQL dump in
# /var/backups/shop, keeping the seven newest.
set -eu
db=/srv/shop/shop.db
dir=/var/backups/shop
keep=7
mkdir -p "$dir"
out="$dir/shop-$(date +%Y%m%d).sql.gz"
sqlite3 -readonly "$db" .dump | gzip -9 > "$out.tmp"
mv "$out.tmp" "$out"
ls -1 "$dir"/shop-*.sql.gz | sort -r | tail -n +$((keep + 1)) | xargs -r rm -f --
SH
chmod 0755 /usr/local/bin/shop-backup
cd /
shop-backup
latest=$(ls -1 /var/backups/shop/shop-*.sql.gz | sort | tail -n 1)
rm -f /tmp/restore-check.db
gunzip -c "$latest" | sqlite3 /tmp/restore-check.db
for t in customers orders order_lines; do
  a=$(sqlite3 -readonly /srv/shop/shop.db "SELECT count(*) FROM $t")
  b=$(sqlite3 /tmp/restore-check.db "SELECT count(*) FROM $t")
  [ "$a" = "$b" ] || { echo "restore check failed for $t: $a != $b" >&2; exit 1; }
done
rm -f /tmp/restore-check.db
ls -l /var/backups/shop
