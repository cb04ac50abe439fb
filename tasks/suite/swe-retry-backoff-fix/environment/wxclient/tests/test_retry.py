import json
from pathlib import Path

import pytest

from wxclient.record import run_case

CASES = json.loads((Path(__file__).parent / "fixtures" / "retry_cases.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_retry_case(case):
    assert run_case(case) == case["expect"]
