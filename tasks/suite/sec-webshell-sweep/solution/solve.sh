#!/bin/bash
# Reference solution: search the document root (binary files too, hidden
# files included) for request input reaching eval/exec-like sinks, a
# request-chosen function, or eval of a computed decoder; hash the hits.
set -euo pipefail
req='\$_(GET|POST|REQUEST|COOKIE)'
sink='(eval|assert|system|exec|passthru|shell_exec|popen|proc_open)'
grep -rlaE "$sink\s*\(\s*$req|$req\[[^]]*\]\s*\(|eval\s*\(\s*\\\$[A-Za-z_]+\s*\(" /srv/www/shop/public \
  | sort \
  | xargs -d '\n' sha256sum > /root/incident/webshells.sha256
