#!/bin/bash
# Frees space on the media volume: drops the thumbnail cache, stale uploads and
# uploads older than a year (those are on the cold archive).
set -u
cd /srv/media || exit 1
rm -rf cache/thumbs/*
rm -f incoming/*.part
find originals -type f -mtime +365 -print -delete
find logs -name 'photod.log.*.gz' -print -delete
df -h /srv/media 2>/dev/null || true
