#!/bin/sh
# Lays out the mirror of releases.reportd.io: releases 2.3.9, 2.4.0 and 2.4.1,
# each a tarball with its SHA256SUMS.
set -eu
root=$1/mirror/releases.reportd.io/download
for v in 2.3.9 2.4.0 2.4.1; do
	tmp=$(mktemp -d)
	mkdir -p "$tmp/reportd-$v/bin" "$tmp/reportd-$v/share"
	printf '#!/bin/sh\ncase "$1" in\n--version) echo "reportd %s" ;;\n*) echo "reportd %s: report scheduler" ;;\nesac\n' "$v" "$v" > "$tmp/reportd-$v/bin/reportd"
	chmod 0755 "$tmp/reportd-$v/bin/reportd"
	printf 'reportd %s release notes\n' "$v" > "$tmp/reportd-$v/share/NOTES"
	mkdir -p "$root/$v"
	tar -C "$tmp" --owner=0 --group=0 --mtime=2026-11-20 -czf "$root/$v/reportd-$v-linux.tar.gz" "reportd-$v"
	(cd "$root/$v" && sha256sum "reportd-$v-linux.tar.gz" > SHA256SUMS)
	rm -rf "$tmp"
done
