import unittest

from relkit import latest, parse_tag, sort_tags


class ParseTagTest(unittest.TestCase):
    def test_release(self):
        self.assertEqual(parse_tag("v1.4.2")[3], None)

    def test_prerelease(self):
        self.assertEqual(parse_tag("v1.5.0-rc.1")[3], "rc.1")

    def test_not_a_release(self):
        self.assertIsNone(parse_tag("nightly-2024-05-01"))


class OrderTest(unittest.TestCase):
    def test_patch_releases(self):
        self.assertEqual(sort_tags(["v1.0.2", "v1.0.0", "v1.0.1"]), ["v1.0.0", "v1.0.1", "v1.0.2"])

    def test_latest_skips_prereleases(self):
        self.assertEqual(latest(["v2.0.0-rc.1", "v1.9.0"]), "v1.9.0")

    def test_latest_with_prereleases(self):
        self.assertEqual(latest(["v1.2.0-beta.1", "v1.1.0"], include_prereleases=True), "v1.2.0-beta.1")


if __name__ == "__main__":
    unittest.main()
