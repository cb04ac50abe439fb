#!/bin/bash
# Reference solution: parse the SRT blocks, drop the [SPONSOR] cues, shift the
# rest by -4400 ms, renumber; CRLF line endings and a leading BOM are kept.
set -euo pipefail
cd /srv/media/harbour/subs
head -c 3 harbour-s01e03.de.srt | od -An -c
for f in harbour-s01e03.en.srt harbour-s01e03.de.srt; do
python3 - "$f" "resync/$f" <<'PY'
import re
import sys

src, dst = sys.argv[1], sys.argv[2]
raw = open(src, "rb").read()
bom = raw.startswith(b"\xef\xbb\xbf")
text = raw[3:].decode() if bom else raw.decode()
TIME = re.compile(r"(\d\d):(\d\d):(\d\d),(\d\d\d)")


def shift(m):
    ms = ((int(m[1]) * 60 + int(m[2])) * 60 + int(m[3])) * 1000 + int(m[4]) - 4400
    assert ms >= 0
    h, ms = divmod(ms, 3600000)
    mi, ms = divmod(ms, 60000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{mi:02d}:{s:02d},{ms:03d}"


out = []
for block in text.split("\r\n\r\n"):
    if not block.strip():
        continue
    lines = block.split("\r\n")
    if any(l.startswith("[SPONSOR]") for l in lines[2:]):
        continue
    lines[0] = str(len(out) + 1)
    lines[1] = TIME.sub(shift, lines[1])
    out.append("\r\n".join(lines))
data = "".join(b + "\r\n\r\n" for b in out).encode()
open(dst, "wb").write((b"\xef\xbb\xbf" if bom else b"") + data)
print(dst, len(out), "cues")
PY
done
