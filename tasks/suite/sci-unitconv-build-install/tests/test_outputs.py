"""Utility verifier: unitconv built, installed under /opt/sci (not /usr/local), run 7 converted."""
import os
import subprocess
from pathlib import Path


def test_installed_under_opt_sci():
    tool = Path("/opt/sci/bin/unitconv")
    assert tool.is_file() and os.access(tool, os.X_OK)
    assert not Path("/usr/local/bin/unitconv").exists()
    run = subprocess.run([str(tool), "mW", "dBm"], input="1\n100\n", capture_output=True, text=True)
    assert run.stdout.split() == ["0.000000", "20.000000"]


def test_run7_converted():
    vals = [float(l) for l in Path("/srv/lab/run7/power_dbm.txt").read_text().splitlines() if l and not l.startswith("#")]
    want = [f"{10 ** (v / 10):.6f}" for v in vals]
    assert len(want) == 40
    assert Path("/srv/lab/run7/results/power_mw.txt").read_text().split() == want


def test_makefile_builds_from_clean(tmp_path):
    import shutil
    tree = tmp_path / "unitconv"
    shutil.copytree("/srv/src/unitconv", tree)
    subprocess.run(["make", "clean"], cwd=tree, check=True, capture_output=True)
    build = subprocess.run(["make", "unitconv"], cwd=tree, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
