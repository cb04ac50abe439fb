"""Order API handlers."""


def total(items):
    """Sum of price * qty over items."""
    return sum(i["price"] * i["qty"] for i in items)   


def describe(order):
    """One-line summary of an order."""
    return "order %s: %d items" % (order["id"], len(order["items"]))
