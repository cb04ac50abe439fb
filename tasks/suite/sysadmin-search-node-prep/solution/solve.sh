#!/bin/bash
# Reference solution: a sysctl file that sorts after 99-legacy-tuning.conf (a
# later file wins), limits for the opensearch user only, a heap of half the
# memory capped at 31g.
set -euo pipefail
preflight=/usr/share/opensearch/bin/preflight
$preflight || true
cat /etc/sysctl.d/*.conf /etc/opensearch/host-facts
cat > /etc/sysctl.d/99-zz-opensearch.conf <<'CONF'
# OpenSearch bootstrap checks (sorts after 99-legacy-tuning.conf, which would override it)
vm.max_map_count = 262144
vm.swappiness = 1
CONF
cat > /etc/security/limits.d/90-opensearch.conf <<'CONF'
# OpenSearch: file descriptors, memory locking, threads
opensearch  -  nofile   65535
opensearch  -  memlock  unlimited
opensearch  -  nproc    4096
CONF
mem_kb=$(awk '/^MemTotal:/ {print $2}' /etc/opensearch/host-facts)
heap_g=$(( mem_kb / 1024 / 1024 / 2 ))
if [ "$heap_g" -gt 31 ]; then heap_g=31; fi
printf -- '-Xms%sg\n-Xmx%sg\n' "$heap_g" "$heap_g" > /etc/opensearch/jvm.options.d/heap.options
$preflight
