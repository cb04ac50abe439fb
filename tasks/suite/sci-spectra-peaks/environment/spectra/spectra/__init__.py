"""Peak finding for the lab's gamma spectra."""
from .peaks import centroid, find_peaks

__all__ = ["centroid", "find_peaks"]
