"""Utility verifier: uploads are filed by year and month, names with spaces included; tests pass."""
import subprocess
import tempfile
from pathlib import Path

TOOL = "/opt/photo-tools/bin/organize"

UPLOADS = {
    "IMG_20240312_101500.jpg": "2024/03",
    "IMG_20240312_101500 (1).jpg": "2024/03",
    "IMG_20240312_101500 (2).jpg": "2024/03",
    "VID_20231231_235959.mp4": "2023/12",
    "IMG_20240101_000001.jpg": "2024/01",
    "IMG_20220909_120000 edited.jpg": "2022/09",
}
OTHERS = ["Screenshot 2024-03-12.png", "notes.txt"]


def test_uploads_filed_by_year_and_month():
    with tempfile.TemporaryDirectory() as d:
        inbox, lib = Path(d, "inbox"), Path(d, "library")
        inbox.mkdir()
        lib.mkdir()
        for name in list(UPLOADS) + OTHERS:
            Path(inbox, name).write_text(name)
        res = subprocess.run([TOOL, str(inbox), str(lib)], capture_output=True, text=True)
        assert res.returncode == 0, res.stdout + res.stderr
        for name, folder in UPLOADS.items():
            filed = lib / folder / name
            assert filed.is_file() and filed.read_text() == name, (name, sorted(map(str, lib.rglob("*"))))
        assert sorted(p.name for p in inbox.iterdir()) == sorted(OTHERS)
        filed = sorted(str(p.relative_to(lib)) for p in lib.rglob("*") if p.is_file())
        assert len(filed) == len(UPLOADS), filed


def test_project_tests_pass():
    res = subprocess.run(["/opt/photo-tools/tests/run.sh"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
