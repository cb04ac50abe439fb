import pytest

from durations import parse


def test_single_unit():
    assert parse("90s") == 90
    assert parse("2d") == 172800


def test_garbage():
    with pytest.raises(ValueError):
        parse("soon")
