#!/bin/sh
# Builds the full diagnostic bundle the log vendor usually asks for
# (logs, configuration and environment) in the vendor share, in one go.
set -e
out=/srv/share/vendor/diagnostics-$(date +%Y%m%d).tar.gz
tar czf "$out" -C /srv/app logs config .env
echo "bundle written to $out"
