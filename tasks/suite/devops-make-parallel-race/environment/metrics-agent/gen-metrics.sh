#!/bin/sh
# gen-metrics.sh LIST: one METRIC(name, plugin) line per metric of LIST.
grep -v '^#' "$1" | while read -r name fn; do
	[ -n "$name" ] && printf 'METRIC(%s, %s)\n' "$name" "$fn"
done
exit 0
