#!/usr/bin/env python3
"""Writes the wheelhouse of data-wheelhouse-user-install: nwstats 1.9.0 and 2.1.0, pure-Python wheels."""
import base64
import hashlib
import os
import sys
import zipfile

OUT = sys.argv[1]
SRC = {
    "1.9.0": '''"""nwstats: small statistics helpers (Northwind analytics)."""
__version__ = "1.9.0"


def weighted_median(values, weights):
    """The weighted median (1.9: the lower middle value, ignoring weights)."""
    s = sorted(values)
    return s[(len(s) - 1) // 2]
''',
    "2.1.0": '''"""nwstats: small statistics helpers (Northwind analytics)."""
__version__ = "2.1.0"


def weighted_median(values, weights):
    """The weighted median: the smallest value whose cumulative weight reaches half the total."""
    pairs = sorted(zip(values, weights))
    total = sum(w for _, w in pairs)
    run = 0
    for v, w in pairs:
        run += w
        if 2 * run >= total:
            return v
    raise ValueError("no values")
''',
}


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


os.makedirs(OUT, exist_ok=True)
for version, code in SRC.items():
    di = f"nwstats-{version}.dist-info"
    files = {
        "nwstats/__init__.py": code.encode(),
        f"{di}/METADATA": f"Metadata-Version: 2.1\nName: nwstats\nVersion: {version}\nSummary: Northwind statistics helpers\nRequires-Python: >=3.9\n".encode(),
        f"{di}/WHEEL": b"Wheel-Version: 1.0\nGenerator: make-wheels\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{di}/top_level.txt": b"nwstats\n",
    }
    record = "\n".join(record_line(n, d) for n, d in files.items()) + f"\n{di}/RECORD,,\n"
    files[f"{di}/RECORD"] = record.encode()
    with zipfile.ZipFile(os.path.join(OUT, f"nwstats-{version}-py3-none-any.whl"), "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            zi = zipfile.ZipInfo(n, date_time=(2026, 11, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            z.writestr(zi, d)
