"""Utility verifier: the sweep's summary, recomputed from sim.py itself."""
import importlib.util
from pathlib import Path

ISING = Path("/home/lab/ising")
TEMPS = ["1.5", "2.0", "2.2", "2.27", "2.4", "2.6", "3.0"]


def test_summary():
    spec = importlib.util.spec_from_file_location("sim", ISING / "sim.py")
    sim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sim)
    lines = (ISING / "results/summary.csv").read_text().split()
    assert lines[0] == "temp,mean_energy,mean_abs_mag"
    assert len(lines) == len(TEMPS) + 1
    for line, t in zip(lines[1:], TEMPS):
        temp, e, m = line.split(",")
        assert float(temp) == float(t)
        run = sim.run(float(t), 16, 400, 42)
        es, ms = run["energy"][100:], [abs(x) for x in run["magnetization"][100:]]
        assert abs(float(e) - sum(es) / len(es)) < 2e-6, t
        assert abs(float(m) - sum(ms) / len(ms)) < 2e-6, t
