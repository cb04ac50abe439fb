#!/bin/bash
# Share the reports with the partner team: copies what their import job
# needs into the synced outbox.
set -e
cd "$(dirname "$0")"
mkdir -p /srv/outbox/analytics
cp -r reports config /srv/outbox/analytics/
echo "published to /srv/outbox/analytics"
