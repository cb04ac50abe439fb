"""Re-records the expectations in tests/fixtures/retry_cases.json.

  python3 -m wxclient.record --offline --out FILE

With --offline (no API access) the expected results are computed with the current client.
"""
import argparse
import json

from wxclient.retry import HTTPError, call_with_retry


def run_case(case):
    outcomes = list(case["outcomes"])
    calls, sleeps = [], []

    def fn():
        calls.append(len(calls) + 1)
        o = outcomes.pop(0) if outcomes else "ok"
        if o == "ok":
            return "forecast"
        if o == "conn":
            raise ConnectionError("connection reset")
        status, _, retry_after = str(o).partition("/")
        raise HTTPError(int(status), {"Retry-After": retry_after} if retry_after else {})

    try:
        result = call_with_retry(fn, attempts=case["attempts"], sleep=sleeps.append)
    except Exception as e:  # noqa: BLE001 -- the fixture records what escaped
        result = f"raised {type(e).__name__}: {e}"
    return {"calls": len(calls), "sleeps": sleeps, "result": result}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--offline", action="store_true")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if not a.offline:
        raise SystemExit("online recording needs the staging API; use --offline here")
    cases = json.load(open(a.out))
    for c in cases:
        c["expect"] = run_case(c)
    with open(a.out, "w") as f:
        json.dump(cases, f, indent=2)
        f.write("\n")
    print(f"re-recorded {len(cases)} cases into {a.out}")


if __name__ == "__main__":
    main()
