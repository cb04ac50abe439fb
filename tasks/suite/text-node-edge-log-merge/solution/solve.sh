#!/bin/bash
# Reference solution: edge-merge ignored the UTC offset, skipped the gzipped
# rotations and dropped the last line of files without a final newline. Fix
# the three, then run it for the UTC day.
set -euo pipefail
ls /var/log/edge/*/
node - <<'JS'
const fs = require('fs');
const p = '/opt/logtools/bin/edge-merge';
let src = fs.readFileSync(p, 'utf8');
const edits = [
  ["const path = require('path');\n", "const path = require('path');\nconst zlib = require('zlib');\n"],
  ["  const [, ip, dd, mon, yyyy, hh, mi, ss, , method, url, status, bytes] = m;\n" +
   "  const t = Date.UTC(+yyyy, MONTHS[mon], +dd, +hh, +mi, +ss);\n",
   "  const [, ip, dd, mon, yyyy, hh, mi, ss, off, method, url, status, bytes] = m;\n" +
   "  const sign = off[0] === '-' ? -1 : 1;\n" +
   "  const offMin = sign * (Number(off.slice(1, 3)) * 60 + Number(off.slice(3, 5)));\n" +
   "  const t = Date.UTC(+yyyy, MONTHS[mon], +dd, +hh, +mi, +ss) - offMin * 60000;\n"],
  ["  const lines = fs.readFileSync(file, 'utf8').split('\\n');\n  lines.pop(); // the empty string after the final newline\n  return lines;\n",
   "  const raw = fs.readFileSync(file);\n  const text = (file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8');\n" +
   "  const lines = text.split('\\n');\n  if (lines[lines.length - 1] === '') lines.pop();\n  return lines;\n"],
  ["/^access\\.log-\\d{8}$/", "/^access\\.log-\\d{8}(\\.gz)?$/"],
];
for (const [a, b] of edits) {
  if (!src.includes(a)) throw new Error('not found: ' + a);
  src = src.replace(a, b);
}
fs.writeFileSync(p, src);
JS
edge-merge --day 2026-11-29 > /srv/reports/edge/edge-2026-11-29.log
wc -l /srv/reports/edge/edge-2026-11-29.log
head -3 /srv/reports/edge/edge-2026-11-29.log
