"""Utility verifier: failures.tsv lists every failed or errored test of pipeline 7731 with its jobs."""
import collections
import xml.etree.ElementTree as ET
from pathlib import Path

PIPE = Path("/srv/ci/pipelines/7731")


def expected():
    broken = collections.defaultdict(set)
    for job in PIPE.iterdir():
        if not job.is_dir():
            continue
        for f in job.glob("junit*.xml"):
            for case in ET.parse(f).getroot().iter("testcase"):
                if case.find("failure") is not None or case.find("error") is not None:
                    broken[case.get("classname") + "." + case.get("name")].add(job.name)
    return [(t, ",".join(sorted(j))) for t, j in sorted(broken.items(), key=lambda kv: (-len(kv[1]), kv[0]))]


def test_failures_tsv():
    lines = (PIPE / "failures.tsv").read_text().splitlines()
    assert lines[0] == "test\tjobs"
    got = [tuple(l.split("\t")) for l in lines[1:] if l.strip()]
    want = expected()
    assert len(want) == 4
    assert want[0] == ("tests.test_checkout.test_shipping_ch", "py3.11-debian,py3.12-alpine,py3.12-debian")
    assert got == want


def test_results_untouched():
    assert len(list(PIPE.glob("*/junit*.xml"))) == 5
