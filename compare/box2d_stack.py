#!/usr/bin/env python3
"""Box2D v3 on the 10-stack of 0.2 m squares (models/box_stack_10_2d.yaml): does Box2D's own
soft step hold the column that tinkertoy's `soft_step` drops at Box2D's default 30 Hz?

The column as the model file builds it: 10 squares of 0.2 m and 1 kg (density 25 kg/m²),
friction 0.6, no restitution, on a static ground, gravity 9.81 m/s² down; h = 1/60 s with 4
substeps (Box2D's defaults: contact_hertz 30, contact damping ratio 10, push-out 3 m/s), 10 s.
Box2D's sleeping freezes bodies that have come to rest, so the column runs twice: with sleeping
(Box2D's default) and without it (every step solved, as tinkertoy does). Printed per run: the
top square's height and place every second, how far it sank and moved, and Box2D's contact
frequency at 4 substeps of 1/60 s.

With a report directory of `experiments/box_stack_10_2d.yaml` as argument, it also prints the
top square's height every second next to each tinkertoy cell's (its `states.csv`, `top_y`).

Needs box2d-python (Box2D v3 bindings, Python >= 3.12): `python3.12 -m pip install box2d-python`.
Usage: python3.12 compare/box2d_stack.py [reports/box_stack_10_2d]
"""
import csv
import os
import platform
import sys

import box2d


def column(sleep: bool):
    """Runs the column for 10 s; returns [(t, top y, top x)] once per second."""
    world = box2d.World(gravity=(0, -9.81))
    world.enable_sleep = sleep
    world.new_body().static().position(0, -0.5).box(20, 1, friction=0.6).build()
    top = None
    for k in range(10):
        top = world.new_body().dynamic().position(0, 0.1 + 0.2 * k).box(0.2, 0.2, density=25, friction=0.6).build()
    rows = [(0.0, top.position.y, top.position.x)]
    for step in range(1, 601):
        world.step(1 / 60, 4)
        if step % 60 == 0:
            rows.append((step / 60, top.position.y, top.position.x))
    return rows, top.mass, world.contact_hertz


def side_by_side(box2d_rows, report):
    """Box2D's top height (sleeping off) every second next to each tinkertoy cell's `top_y`."""
    summary = csv.DictReader(open(os.path.join(report, "summary.csv")))
    labels = {r["cell"]: f"{r['formulation']} · {r['solver']}" for r in summary}
    heights = {}
    for r in csv.DictReader(open(os.path.join(report, "states.csv"))):
        if r["name"] == "top_y":
            heights.setdefault(r["cell"], {})[round(float(r["t"]), 6)] = float(r["value"])
    cells = sorted(heights, key=int)
    print(f"\ntop y [m], Box2D v3 with sleeping off and the cells of {report}:")
    print("| t [s] | Box2D v3 | " + " | ".join(f"`{labels[c]}`" for c in cells) + " |")
    print("|---|---|" + "---|" * len(cells))
    for t, y, _ in box2d_rows:
        cols = [f"{heights[c].get(round(t, 6), float('nan')):.7f}" for c in cells]
        print(f"| {t:.0f} | {y:.7f} | " + " | ".join(cols) + " |")


def main():
    print(f"Box2D v3 (box2d-python) on Python {platform.python_version()}, {platform.machine()}")
    awake = None
    for sleep in (True, False):
        rows, mass, hertz = column(sleep)
        if not sleep:
            awake = rows
        print(f"\nsleeping {'on (Box2D default)' if sleep else 'off'}: top square mass {mass:.4f} kg, contact_hertz {hertz}")
        print("| t [s] | top y [m] | top x [m] |")
        print("|---|---|---|")
        for t, y, x in rows:
            print(f"| {t:.0f} | {y:.7f} | {x:.2e} |")
        print(f"sank {rows[0][1] - rows[-1][1]:.2e} m, moved {abs(rows[-1][2] - rows[0][2]):.2e} m in 10 s")
    if len(sys.argv) > 1:
        side_by_side(awake, sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
