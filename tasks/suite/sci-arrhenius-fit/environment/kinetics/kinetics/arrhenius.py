"""Arrhenius fits: ln k = ln A - Ea / (R T), by least squares over (T, k) points."""
import math

R = 8.314462618  # J/(mol K)


def linfit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    slope = sxy / sxx
    return slope, my - slope * mx


def fit(points):
    """points: (temperature in degrees Celsius, rate constant k in 1/s).
    Returns (Ea in J/mol, A in 1/s)."""
    xs = [1.0 / t for t, _ in points]
    ys = [math.log(k) for _, k in points]
    slope, intercept = linfit(xs, ys)
    return -slope * R, math.exp(intercept)


def rate(ea, a, celsius):
    """k at a temperature in degrees Celsius."""
    return a * math.exp(-ea / (R * (celsius + 273.15)))
