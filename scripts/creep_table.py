#!/usr/bin/env python3
"""Prints the creep table of docs/results.md from a contact experiment's report directory:
per cell, the formulation and solver (and the scene variant when the experiment has several), its iterations over the run, the worst step's residual, the deepest
penetration, the recorded height output at the last sample, and its creep (how far it sank from
its first to its last sample, and that per second; and the rate over the second half of the run
alone, which leaves out a settling at the start, e.g. a soft contact's equilibrium penetration).

Usage: python3 scripts/creep_table.py reports/contact_pyramid [OUTPUT]   (OUTPUT default top_z)
"""
import csv
import sys


def name(row, variants):
    """`formulation` · `solver` of a summary row, after its scene variant when there are several."""
    cell = f"`{row['formulation']}` · `{row['solver']}`"
    return f"`{row['scene']}` · {cell}" if variants > 1 else cell


def main():
    folder = sys.argv[1]
    output = sys.argv[2] if len(sys.argv) > 2 else "top_z"
    heights = {}
    for row in csv.DictReader(open(f"{folder}/states.csv")):
        if row["name"] == output:
            heights.setdefault(row["cell"], []).append((float(row["t"]), float(row["value"])))
    print(f"| cell | iterations | worst step's residual | deepest penetration [m] | {output} at the end [m] | sank [m] | creep [m/s] | creep, second half [m/s] |")
    print("|---|---|---|---|---|---|---|---|")
    rows = list(csv.DictReader(open(f"{folder}/summary.csv")))
    variants = len({row["scene"] for row in rows})
    for row in rows:
        samples = sorted(heights.get(row["cell"], []))
        if row["status"] != "ok" or len(samples) < 2:
            print(f"| {name(row, variants)} | {row['status']} | | | | | | |")
            continue
        (t0, z0), (t1, z1) = samples[0], samples[-1]
        sank = z0 - z1
        tm, zm = next((t, z) for t, z in samples if t >= (t0 + t1) / 2)
        print(
            f"| {name(row, variants)} | {row['solver_iterations']} | {float(row['max_solver_residual']):.1e} "
            f"| {float(row['max_drift_position']):.1e} | {z1:.7f} | {sank:.1e} | {sank / (t1 - t0):.1e} | {(zm - z1) / (t1 - tm):.1e} |"
        )


if __name__ == "__main__":
    main()
