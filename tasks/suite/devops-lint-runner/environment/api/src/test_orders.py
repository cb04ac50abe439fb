"""Tests for the order handlers."""
import unittest

from orders import describe, total


class OrdersTest(unittest.TestCase):
    def test_total(self):
        self.assertEqual(total([{"price": 2.5, "qty": 2}]), 5.0)

    def test_describe(self):
        self.assertEqual(describe({"id": 7, "items": []}), "order 7: 0 items")


if __name__ == "__main__":
    unittest.main()
