#!/usr/bin/env python3
"""The table of docs/results.md "Seed 001: warm start — by how much?": total solver iterations of
each contact solver with a warm and a cold start, and their ratio, from the summary.csv that
`cargo run --release -- run experiments/seed001_warm_start.yaml` writes.

    python3 scripts/warm_start_table.py [reports/seed001_warm_start/summary.csv]
"""
import csv
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "reports/seed001_warm_start/summary.csv"
rows = list(csv.DictReader(open(path)))
its = {(r["scene"].split()[0], r["formulation"], r["solver"]): int(r["solver_iterations"]) for r in rows}
print("| stack | solver | iterations, warm | iterations, cold | cold / warm |")
print("|---|---|---|---|---|")
for scene in sorted({k[0] for k in its}):
    for solver in dict.fromkeys(r["solver"] for r in rows):
        warm = its[(scene, "pgs, cone, warm start", solver)]
        cold = its[(scene, "pgs, cone, cold start", solver)]
        print(f"| {scene.split('=')[1]} cubes | `{solver}` | {warm} | {cold} | {cold / warm:.0f} |")
