#!/bin/bash
set -euo pipefail
exec python3 /solution/purge.py
