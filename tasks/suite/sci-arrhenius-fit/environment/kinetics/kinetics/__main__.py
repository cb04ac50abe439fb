"""python3 -m kinetics fit FILE.csv: the Arrhenius fit of a CSV of temp_c,k as JSON."""
import csv
import json
import sys

from kinetics.arrhenius import fit, rate


def main(argv):
    if len(argv) != 2 or argv[0] != "fit":
        sys.exit("usage: python3 -m kinetics fit FILE.csv")
    with open(argv[1], newline="") as f:
        pts = [(float(r["temp_c"]), float(r["k"])) for r in csv.DictReader(f)]
    ea, a = fit(pts)
    print(json.dumps({"points": len(pts), "Ea_kJ_per_mol": round(ea / 1000, 4), "A_per_s": float(f"{a:.6g}"),
                      "k_25C_per_s": float(f"{rate(ea, a, 25.0):.6g}")}, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
