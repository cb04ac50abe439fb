from ledger.money import split, to_cents


def test_to_cents():
    assert to_cents("12.34") == 1234
