import math

import pytest

from kinetics.arrhenius import fit, rate


def synthetic(ea, a, temps):
    return [(t, a * math.exp(-ea / (8.314462618 * (t + 273.15)))) for t in temps]


def test_recovers_activation_energy():
    ea, a = fit(synthetic(85_000.0, 3.2e11, [25, 40, 50, 60, 70]))
    assert ea == pytest.approx(85_000.0, rel=1e-9)
    assert a == pytest.approx(3.2e11, rel=1e-9)


def test_rate_roundtrip():
    pts = synthetic(62_500.0, 4.0e7, [30, 45, 60])
    ea, a = fit(pts)
    for t, k in pts:
        assert rate(ea, a, t) == pytest.approx(k, rel=1e-9)


def test_linfit_exact_line():
    from kinetics.arrhenius import linfit
    assert linfit([1, 2, 3], [5, 7, 9]) == pytest.approx((2.0, 3.0))
