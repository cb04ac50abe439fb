#!/bin/bash
# Reference solution: parse() on the csv module (quoted commas, doubled
# quotes, embedded line breaks, CRLF), tests for each, pytest without its
# cache, the conversion.
set -euo pipefail
cd /srv/importer
cat README.md
python3 - <<'PY'
from pathlib import Path
p = Path("tickets_import/__init__.py")
s = p.read_text()
old = s[s.index("def parse(text):"):s.index("def convert(")]
new = '''def parse(text):
    """Rows of a helpdesk CSV export (RFC 4180) as dicts (the first record is the header)."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    return [dict(r) for r in reader]


'''
s = s.replace(old, new).replace('import json\n', 'import csv\nimport io\nimport json\n', 1)
s = s.replace('with open(src, encoding="utf-8") as f:', 'with open(src, encoding="utf-8", newline="") as f:')
p.write_text(s)
PY
cat >> tests/test_parse.py <<'PYT'


def test_quoted_comma_and_doubled_quotes():
    rows = parse('id,subject,body,tags\r\n2,"Invoice, wrong","He said ""hi""",\r\n')
    assert rows[0]["subject"] == "Invoice, wrong" and rows[0]["body"] == 'He said "hi"' and rows[0]["tags"] == ""


def test_line_breaks_inside_fields():
    rows = parse('id,subject,body,tags\r\n3,Crash,"line one\r\nline two",web\r\n4,Ok,fine,\r\n')
    assert [r["id"] for r in rows] == ["3", "4"]
    assert rows[0]["body"] == "line one\r\nline two"
PYT
python3 -m pytest -q -p no:cacheprovider tests
python3 -m tickets_import /srv/exports/tickets-2026-12-02.csv /srv/index/tickets-2026-12-02.jsonl
