#!/bin/bash
# Reference solution: the sort key compared the version numbers as strings
# ("10" < "9") and the pre-release as one string ("" first, "beta.10" <
# "beta.2"). Compare numbers as integers, put a release after its
# pre-releases, and compare pre-release identifiers one by one (numeric ones
# numerically and before alphanumeric ones), as semver 2.0.0 §11 says.
set -euo pipefail
cd /app/relkit
python3 - <<'PY'
from pathlib import Path

p = Path("relkit/version.py")
src = p.read_text()
old = '''def _key(tag):
    major, minor, patch, pre = parse_tag(tag)
    return (major, minor, patch, pre or "")
'''
new = '''def _pre_key(pre):
    if pre is None:
        return (1,)  # a release sorts after all its pre-releases
    ids = [(0, int(i), "") if i.isdigit() else (1, 0, i) for i in pre.split(".")]
    return (0, ids)


def _key(tag):
    major, minor, patch, pre = parse_tag(tag)
    return (int(major), int(minor), int(patch), _pre_key(pre))
'''
assert old in src
p.write_text(src.replace(old, new, 1))

t = Path("tests/test_version.py")
src = t.read_text()
reg = '''

class SemverOrderRegressionTest(unittest.TestCase):
    def test_numbers_compare_as_numbers(self):
        self.assertEqual(latest(["v1.9.3", "v1.10.0", "v1.2.0"]), "v1.10.0")

    def test_release_after_its_prereleases(self):
        self.assertEqual(sort_tags(["v1.10.0", "v1.10.0-rc.2", "v1.10.0-rc.1"]),
                         ["v1.10.0-rc.1", "v1.10.0-rc.2", "v1.10.0"])

    def test_prerelease_identifiers(self):
        self.assertEqual(sort_tags(["v2.0.0-beta.10", "v2.0.0-beta", "v2.0.0-beta.2", "v2.0.0-alpha"]),
                         ["v2.0.0-alpha", "v2.0.0-beta", "v2.0.0-beta.2", "v2.0.0-beta.10"])
'''
src = src.replace('\n\nif __name__ == "__main__":', reg + '\n\nif __name__ == "__main__":', 1)
t.write_text(src)
PY
make test
bin/relkit latest tags.txt
bin/relkit latest --pre tags.txt
