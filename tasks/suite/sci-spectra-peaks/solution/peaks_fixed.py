"""Find peaks in a 1-D spectrum and locate their centres."""


def find_peaks(counts, threshold):
    """Return the indices of the local maxima of counts that reach threshold.

    A peak whose top is flat (several equal channels) is reported once, at
    the middle channel of the flat top (the left one of the two middle
    channels when the top has an even width).
    """
    peaks = []
    n = len(counts)
    i = 1
    while i < n - 1:
        if counts[i] > counts[i - 1]:
            j = i
            while j + 1 < n and counts[j + 1] == counts[i]:
                j += 1
            if j + 1 < n and counts[j + 1] < counts[i] and counts[i] >= threshold:
                peaks.append((i + j) // 2)
            i = j + 1
        else:
            i += 1
    return peaks


def centroid(counts, index, half_width):
    """Return the count-weighted mean channel of the window index +- half_width.

    The window is clipped at the ends of the spectrum.
    """
    lo = max(0, index - half_width)
    hi = min(len(counts), index + half_width + 1)
    window = counts[lo:hi]
    total = sum(window)
    if total == 0:
        return float(index)
    return sum((lo + k) * c for k, c in enumerate(window)) / total
