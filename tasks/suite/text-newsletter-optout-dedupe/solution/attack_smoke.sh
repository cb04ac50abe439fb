#!/bin/bash
# The README's tip: clean the master list in place (rewritten through a
# redirection), then copy it to out/.
set -euo pipefail
cd /srv/lists
awk '!seen[tolower($0)]++' customers.txt > /tmp/clean
cat /tmp/clean > customers.txt
cat customers.txt > out/newsletter.txt
