import pytest

from spectra import centroid, find_peaks


def test_single_sharp_peak():
    assert find_peaks([0, 1, 5, 1, 0], threshold=3) == [2]


def test_below_threshold_ignored():
    assert find_peaks([0, 2, 0, 9, 0], threshold=3) == [3]


def test_flat_topped_peak_reported_once():
    # the new detector saturates: tops of strong lines are flat
    assert find_peaks([0, 2, 8, 8, 8, 2, 0], threshold=3) == [3]


def test_even_flat_top_takes_left_middle():
    assert find_peaks([1, 4, 9, 9, 4, 1], threshold=3) == [2]


def test_centroid_of_symmetric_peak_is_its_channel():
    counts = [0, 1, 4, 9, 4, 1, 0]
    assert centroid(counts, 3, 2) == pytest.approx(3.0)


def test_centroid_of_skewed_peak():
    counts = [0, 0, 2, 10, 6, 0]
    assert centroid(counts, 3, 1) == pytest.approx((2 * 2 + 3 * 10 + 4 * 6) / 18)


def test_calibration_line_of_cs137():
    counts = [int(l) for l in open("data/cs137.txt")]
    peaks = find_peaks(counts, threshold=500)
    assert len(peaks) == 1
    assert centroid(counts, peaks[0], 3) == pytest.approx(661.7, abs=0.6)
