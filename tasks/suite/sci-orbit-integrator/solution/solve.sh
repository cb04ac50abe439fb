#!/bin/bash
set -euo pipefail
cd /home/lab/orbit
# explicit Euler -> classical fourth-order Runge-Kutta
python3 - <<'PY'
from pathlib import Path
p = Path("orbit.py")
src = p.read_text()
old = src[src.index("def step(state, dt):"):src.index("def main():")]
new = '''def step(state, dt):
    """Advance (x, y, vx, vy) by dt with the classical fourth-order Runge-Kutta method."""
    def deriv(s):
        x, y, vx, vy = s
        ax, ay = accel(x, y)
        return (vx, vy, ax, ay)

    def add(s, k, h):
        return tuple(a + h * b for a, b in zip(s, k))

    k1 = deriv(state)
    k2 = deriv(add(state, k1, dt / 2))
    k3 = deriv(add(state, k2, dt / 2))
    k4 = deriv(add(state, k3, dt))
    return tuple(s + dt / 6 * (a + 2 * b + 2 * c + d) for s, a, b, c, d in zip(state, k1, k2, k3, k4))


'''
p.write_text(src.replace(old, new))
PY
./run.sh
tail -n 1 results/orbit.csv
