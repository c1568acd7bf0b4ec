#!/usr/bin/env python3
"""The table of docs/results.md "Seed 001: Gauss-Seidel is not guaranteed to converge": per stack
and contact solver, the iterations over the run, the share of steps that ended at the iteration
cap, the worst step's natural-map residual and the deepest penetration, from the summary.csv that
`cargo run --release -- run experiments/seed001_gauss_seidel.yaml` writes.

    python3 scripts/gauss_seidel_table.py [reports/seed001_gauss_seidel/summary.csv] [CAP]
"""
import csv
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "reports/seed001_gauss_seidel/summary.csv"
cap = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
rows = list(csv.DictReader(open(path)))
print("| stack | solver | iterations | mean per step | worst step's residual | deepest penetration [m] |")
print("|---|---|---|---|---|---|")
for r in rows:
    solves = int(r["linear_solves"])
    its = int(r["solver_iterations"])
    mean = its / solves if solves else float("nan")
    note = " (every step at the cap)" if its == cap * solves else ""
    print(
        f"| {r['scene'].split('=')[1]} cubes | `{r['solver']}` | {its}{note} | {mean:.0f} | "
        f"{float(r['max_solver_residual']):.1e} | {float(r['max_drift_position']):.1e} |"
    )
