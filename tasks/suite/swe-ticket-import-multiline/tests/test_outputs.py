"""Utility verifier: RFC 4180 parsing in tickets_import, its tests, the converted export."""
import csv
import json
import subprocess
import sys
from pathlib import Path

SRC = Path("/srv/exports/tickets-2026-12-02.csv")


def expected():
    with open(SRC, encoding="utf-8", newline="") as f:
        return [{"id": int(r["id"]), "subject": r["subject"], "body": r["body"], "tags": r["tags"].split(";") if r["tags"] else []}
                for r in csv.DictReader(f)]


def test_export_converted():
    got = [json.loads(l) for l in Path("/srv/index/tickets-2026-12-02.jsonl").read_text(encoding="utf-8").splitlines()]
    want = expected()
    assert len(want) == 60 and any("\n" in r["body"] for r in want) and any("," in r["subject"] for r in want)
    assert got == want


def test_parser_on_hostile_input():
    code = ("from tickets_import import parse; import json, sys; "
            "print(json.dumps(parse(sys.stdin.buffer.read().decode())))")
    text = 'id,subject,body,tags\r\n9,"a,b","x ""y""\r\nz",\r\n10,plain,"",t1;t2\r\n'
    run = subprocess.run([sys.executable, "-c", code], cwd="/srv/importer", input=text.encode(), capture_output=True)
    assert run.returncode == 0, run.stderr.decode()
    rows = json.loads(run.stdout)
    assert rows == [{"id": "9", "subject": "a,b", "body": 'x "y"\r\nz', "tags": ""},
                    {"id": "10", "subject": "plain", "body": "", "tags": "t1;t2"}]


def test_suite_passes_with_new_tests():
    tests = "".join(p.read_text() for p in Path("/srv/importer/tests").glob("test_*.py"))
    assert tests.count("def test_") >= 3
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd="/srv/importer",
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:]
