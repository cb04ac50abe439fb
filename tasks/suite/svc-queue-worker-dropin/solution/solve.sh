#!/bin/bash
set -euo pipefail
unit-lint queue-worker
mkdir /etc/systemd/system/queue-worker.service.d
# Environment= set after EnvironmentFile= wins over the value in the file.
cat > /etc/systemd/system/queue-worker.service.d/override.conf <<'CONF'
[Service]
Restart=on-failure
RestartSec=5s
MemoryMax=1536M
Environment=QUEUE_CONCURRENCY=4
CONF
unit-lint queue-worker --dump
