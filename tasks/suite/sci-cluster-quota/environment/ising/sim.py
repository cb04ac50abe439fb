"""2D Ising model, Metropolis single-spin flips on an L x L periodic lattice.

usage: sim.py --temp T --size L --sweeps N --seed S --out FILE
Writes JSON with the energy and magnetisation per spin after every sweep.
"""
import argparse
import json
import math
import random


def run(temp, size, sweeps, seed):
    rng = random.Random(seed * 100003 + round(temp * 1000))
    n = size * size
    s = [1] * n
    nb = [((i // size) * size + (i + 1) % size, (i // size) * size + (i - 1) % size,
           (i + size) % n, (i - size) % n) for i in range(n)]
    energy = -2 * n
    mag = n
    boltz = {d: math.exp(-d / temp) for d in (4, 8)}
    es, ms = [], []
    for _ in range(sweeps):
        for _ in range(n):
            i = rng.randrange(n)
            d = 2 * s[i] * sum(s[j] for j in nb[i])
            if d <= 0 or rng.random() < boltz[d]:
                s[i] = -s[i]
                energy += d
                mag += 2 * s[i]
        es.append(energy / n)
        ms.append(mag / n)
    return {"temp": temp, "size": size, "sweeps": sweeps, "seed": seed, "energy": es, "magnetization": ms}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--temp", type=float, required=True)
    p.add_argument("--size", type=int, default=16)
    p.add_argument("--sweeps", type=int, default=400)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    with open(a.out, "w") as f:
        json.dump(run(a.temp, a.size, a.sweeps, a.seed), f)


if __name__ == "__main__":
    main()
