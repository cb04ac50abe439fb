#!/usr/bin/env python3
"""Test-particle orbit in a point-mass potential (G M = 1).

Usage: orbit.py [--periods N] [--dt DT] [--out FILE]

Starts on the unit circle with circular velocity, so the exact orbit is the
unit circle with period 2 pi; writes t,x,y,vx,vy,energy every 100 steps.
"""
import argparse
import csv
import math


def accel(x, y):
    r3 = (x * x + y * y) ** 1.5
    return -x / r3, -y / r3


def energy(x, y, vx, vy):
    return 0.5 * (vx * vx + vy * vy) - 1 / math.hypot(x, y)


def step(state, dt):
    """Advance (x, y, vx, vy) by dt."""
    x, y, vx, vy = state
    ax, ay = accel(x, y)
    return x + dt * vx, y + dt * vy, vx + dt * ax, vy + dt * ay


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--periods", type=float, default=10)
    ap.add_argument("--dt", type=float, default=1e-3)
    ap.add_argument("--out", default="results/orbit.csv")
    a = ap.parse_args()
    steps = round(a.periods * 2 * math.pi / a.dt)
    state = (1.0, 0.0, 0.0, 1.0)
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t", "x", "y", "vx", "vy", "energy"])
        for i in range(steps + 1):
            if i % 100 == 0 or i == steps:
                w.writerow([f"{i * a.dt:.6f}"] + [f"{v:.12f}" for v in state] + [f"{energy(*state):.12f}"])
            if i < steps:
                state = step(state, a.dt)
    e0 = energy(1.0, 0.0, 0.0, 1.0)
    print(f"{steps} steps, relative energy error {abs((energy(*state) - e0) / e0):.3e}")


if __name__ == "__main__":
    main()
