#!/bin/bash
# Unit tests, with a JUnit report for the CI dashboard.
set -euo pipefail
mkdir -p build
python3 -m pytest --junitxml=build/junit.xml
