#!/usr/bin/env python3
"""How far the Test Set's published multipliers of the car axis problem (t = 3 s) are from the
multipliers its own published state implies.

Independent of tinkertoy: the car axis equations as the Test Set writes them (Mazzia & Magherini,
Test Set for IVP Solvers 2.4, problem caraxis, index 3), k p'' = f(p, t) + G(p, t)^T lambda, with
the acceleration-level constraint G p'' + (d/dt G) p' + C_tt = 0 solved for lambda at the published
positions and velocities, in 30-digit arithmetic (mpmath). The difference bounds how many digits
of the published lambda any solver can be scored on.

    python3 scripts/car_axis_lambda.py [reports/car_axis/states.csv]

With the states.csv of `run experiments/car_axis.yaml` (which records lambda1 and lambda2), it
also prints how far each cell's multipliers at t = 3 s are from the implied ones.
"""
import csv
import sys
from mpmath import mp, mpf, sin, cos, sqrt, log10

mp.dps = 30
# Published solution at t = 3 s (y1..y10).
Y = [mpf(s) for s in (
    "0.4934557842755629e-1", "0.4969894602303324", "0.1041742524885400e1", "0.3739110272652214",
    "-0.7705836840321485e-1", "0.7446866596327776e-2", "0.1755681574942899e-1", "0.7703410437794031",
    "-0.4736886750784630e-2", "-0.1104680411345730e-2")]
EPS, M, L, L0, R, W, G = mpf("0.01"), 10, 1, mpf("0.5"), mpf("0.1"), 10, 1
K = M * EPS**2 / 2


def implied_lambda(t, y):
    xl, yl, xr, yr, ul, vl, ur, vr = y[:8]
    yb, ybd, ybdd = R * sin(W * t), R * W * cos(W * t), -R * W * W * sin(W * t)
    xb = sqrt(L * L - yb * yb)
    xbd = -yb * ybd / xb
    xbdd = -(ybd**2 + yb * ybdd) / xb - (yb * ybd) ** 2 / xb**3
    ll, lr = sqrt(xl**2 + yl**2), sqrt((xr - xb) ** 2 + (yr - yb) ** 2)
    f = [(L0 - ll) * xl / ll, (L0 - ll) * yl / ll - K * G, (L0 - lr) * (xr - xb) / lr, (L0 - lr) * (yr - yb) / lr - K * G]
    g = [[xb, yb, 0, 0], [2 * (xl - xr), 2 * (yl - yr), -2 * (xl - xr), -2 * (yl - yr)]]
    # G p'' = -(the velocity and time terms of C'').
    rest = [xbdd * xl + 2 * xbd * ul + ybdd * yl + 2 * ybd * vl, 2 * ((ul - ur) ** 2 + (vl - vr) ** 2)]
    a = [[sum(g[i][m] * g[j][m] for m in range(4)) for j in range(2)] for i in range(2)]
    b = [-sum(g[i][m] * f[m] for m in range(4)) - K * rest[i] for i in range(2)]
    det = a[0][0] * a[1][1] - a[0][1] * a[1][0]
    return [(b[0] * a[1][1] - a[0][1] * b[1]) / det, (a[0][0] * b[1] - a[1][0] * b[0]) / det]


IMPLIED = implied_lambda(mpf(3), Y)
for name, implied, published in zip(("lambda1", "lambda2"), IMPLIED, Y[8:]):
    e = abs(implied - published)
    print(f"{name}: published {mp.nstr(published, 16)}, implied by the published state {mp.nstr(implied, 16)}, "
          f"difference {mp.nstr(e, 3)} (relative {mp.nstr(e / abs(published), 3)}; "
          f"mixed scd {mp.nstr(-log10(e / (1 + abs(published))), 3)})")

if len(sys.argv) > 1:
    cells = {}
    with open(sys.argv[1], newline="") as f:
        for row in csv.DictReader(f):
            if row["name"] in ("lambda1", "lambda2") and abs(float(row["t"]) - 3.0) < 1e-12:
                cells.setdefault(int(row["cell"]), {})[row["name"]] = mpf(row["value"])
    for cell, lam in sorted(cells.items()):
        rel = [abs(lam[n] - i) / abs(i) for n, i in zip(("lambda1", "lambda2"), IMPLIED) if n in lam]
        print(f"cell {cell}: relative distance from the implied lambda1, lambda2: " + ", ".join(mp.nstr(r, 3) for r in rel))
