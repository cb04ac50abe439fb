"""Utility verifier: both subtitle files resynced (-4.4 s, no sponsor cues, renumbered), format kept."""
import hashlib
import re
from pathlib import Path

SUBS = Path("/srv/media/harbour/subs")
NAMES = ("harbour-s01e03.en.srt", "harbour-s01e03.de.srt")
ORIGINALS = {
    "harbour-s01e03.en.srt": "b2d4261cce4f07baddfa181fedeb76024232c06df828bea44f4a62e92d0eb7ad",
    "harbour-s01e03.de.srt": "e0a27d194cb9e896dbc691d790e2079cb7f602df1d72b9bed318ca17a77e18bb",
}
TIME = re.compile(r"^(\d\d):(\d\d):(\d\d),(\d\d\d) --> (\d\d):(\d\d):(\d\d),(\d\d\d)$")


def ms(h, m, s, f):
    return ((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + int(f)


def cues(data):
    text = data[3:].decode() if data.startswith(b"\xef\xbb\xbf") else data.decode()
    assert text.endswith("\r\n\r\n") and "\n" not in text.replace("\r\n", "")
    out = []
    for block in text[:-4].split("\r\n\r\n"):
        lines = block.split("\r\n")
        m = TIME.match(lines[1])
        assert m, lines[1]
        out.append((int(lines[0]), ms(*m.groups()[:4]), ms(*m.groups()[4:]), lines[2:]))
    return out


def test_originals_untouched():
    for name, sha in ORIGINALS.items():
        assert hashlib.sha256((SUBS / name).read_bytes()).hexdigest() == sha, f"{name} was changed"


def test_resynced_copies():
    for name in NAMES:
        orig = (SUBS / name).read_bytes()
        new = (SUBS / "resync" / name).read_bytes()
        assert new.startswith(b"\xef\xbb\xbf") == orig.startswith(b"\xef\xbb\xbf"), f"{name}: byte-order mark"
        want = [c for c in cues(orig) if not any(l.startswith("[SPONSOR]") for l in c[3])]
        got = cues(new)
        assert len(got) == len(want) == 30
        for i, (g, w) in enumerate(zip(got, want), 1):
            assert g[0] == i
            assert (g[1], g[2]) == (w[1] - 4400, w[2] - 4400), (name, i)
            assert g[3] == w[3]
