#!/bin/bash
# Reference solution: pip --user from the local wheelhouse (requirements.txt
# picks 2.1.0 over the older 1.9.0 wheel beside it), into ~/.local; then the
# report.
set -euo pipefail
cd /srv/analysis
cat README.md requirements.txt
python3 -m pip install --user --no-index --find-links /srv/wheelhouse --disable-pip-version-check -r requirements.txt
python3 report.py
