#!/usr/bin/env python3
"""Reduce one thermocouple run (CSV t_s,mV on stdin) to a summary line in degC."""
import argparse
import csv
import json
import statistics
import sys


def to_celsius(mv, coefficients):
    # Horner's scheme
    t = 0.0
    for c in coefficients:
        t = t * mv + c
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calib", required=True)
    ap.add_argument("--run", required=True)
    args = ap.parse_args()
    coefficients = json.load(open(args.calib))["coefficients"]
    temps = []
    for row in csv.DictReader(line for line in sys.stdin if not line.startswith("#")):
        temps.append(to_celsius(float(row["mV"]), coefficients))
    print(f"{args.run},{len(temps)},{statistics.mean(temps):.3f},{statistics.stdev(temps):.3f},"
          f"{min(temps):.3f},{max(temps):.3f}")


if __name__ == "__main__":
    main()
