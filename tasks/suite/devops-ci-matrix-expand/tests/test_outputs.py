"""Utility verifier: the CI matrix expanded with excludes and includes, recomputed."""
import itertools
import json
from pathlib import Path


def expected():
    m = json.loads(Path("/srv/ci/matrix.json").read_text())
    axes = list(m["matrix"])
    jobs = [dict(zip(axes, combo)) for combo in itertools.product(*(m["matrix"][a] for a in axes))]
    jobs = [j for j in jobs if not any(all(j.get(k) == v for k, v in ex.items()) for ex in m["exclude"])]
    for inc in m["include"]:
        keys = {k: v for k, v in inc.items() if k in axes}
        hit = [j for j in jobs if all(j[k] == v for k, v in keys.items())]
        if hit:
            for j in hit:
                j.update(inc)
        else:
            jobs.append(dict(inc))
    return [{"name": f"{j['os']}/{j['python']}/{j['db']}", "os": j["os"], "python": j["python"], "db": j["db"],
             "experimental": j.get("experimental", False), "coverage": j.get("coverage", False)} for j in jobs]


def test_jobs():
    want = expected()
    assert len(want) == 14
    assert json.loads(Path("/srv/ci/jobs.json").read_text()) == want
