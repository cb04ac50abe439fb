"""Utility verifier: the peak finder handles the new detector's flat tops and the project's tests pass."""
import os
import subprocess
import sys

import pytest

sys.path.insert(0, "/home/lab/spectra")
from spectra import centroid, find_peaks  # noqa: E402


def test_project_suite_passes():
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run(["make", "test"], cwd="/home/lab/spectra", capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "xfail" not in p.stdout and "skipped" not in p.stdout, p.stdout


@pytest.mark.parametrize("counts,want", [
    ([0, 3, 7, 7, 3, 0, 5, 9, 9, 9, 9, 9, 2], [2, 9]),
    ([5, 5, 5, 5], []),
    ([0, 6, 6, 6, 7, 1], [4]),
    ([9, 1, 1, 8, 8, 1, 0, 4, 0], [3]),
])
def test_flat_tops(counts, want):
    assert find_peaks(counts, threshold=5) == want


def test_centroid_window_is_symmetric():
    counts = [0, 0, 1, 2, 8, 2, 1, 0, 0]
    assert centroid(counts, 4, 2) == pytest.approx(4.0)
    assert centroid(counts, 4, 3) == pytest.approx(4.0)
    assert centroid([4, 2, 0, 0], 0, 1) == pytest.approx(2 / 6)


def test_two_lines_in_a_saturated_spectrum():
    counts = [0] * 40
    for c, h in ((12, 900), (27, 700)):
        for d in range(-3, 4):
            counts[c + d] += min(int(h * 0.6 ** abs(d)), 600)
    peaks = find_peaks(counts, threshold=300)
    assert peaks == [12, 27]
    assert centroid(counts, peaks[0], 3) == pytest.approx(12.0)
