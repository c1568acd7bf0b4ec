#!/usr/bin/env python3
"""Pinocchio's articulated-body algorithm next to tinkertoy's `lagrangian` evaluation, per link.

The chain: tinkertoy's `chain_3d` scene, N cuboid links (0.5 x 0.05 x 0.05 m, 1 kg) on ball
joints, gravity 9.81 m/s^2 along -y. One evaluation is the joint accelerations from positions and
velocities (Featherstone's ABA: positions, velocities, the inward and outward passes):
  tinkertoy  `cargo bench --bench lagrangian -- chain_3d_evaluation`, divan's median of one
             evaluation (ball joints as quaternions, 6D spatial algebra), at N = 10 and 100
  Pinocchio  pin.aba(model, data, q, v, tau) on the same chain built of JointModelSpherical
             joints (quaternions), random configuration and velocities (ABA's work does not depend
             on the values), in both of its conventions (LOCAL, WORLD); the faster is quoted
Each is timed in ROUNDS interleaved rounds (order alternating); a figure is the median over the
rounds with its min-max. Pinocchio is timed from Python: a batch of calls, the median batch's time
per call, which includes one Python-to-C++ call with its numpy arguments; that call's cost, the
same loop on a chain of no links, is printed and subtracted in the last ratio column.

The planar chain: tinkertoy's `chain` scene, 1 kg point masses 0.1 m apart, the first pinned
(`cargo bench --bench lagrangian -- chain_evaluation`: the planar tree, 3-vector algebra, bent and
swinging), at N = 10 and 100 links, against pin.aba on the same chain of JointModelRZ joints
(Pinocchio's specialised revolute-about-z joint in its 6D algebra; it has no planar algorithm, so
this baseline is stated as what it is: its specialised one-axis joint, not a planar code).

Run from the repository root with Python >= 3.12:  python3.12 -m pip install pin==4.1.0 &&
python3.12 compare/pinocchio_aba.py   (PINOCCHIO_ROUNDS, default 5)
"""

import datetime
import math
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = (10, 100)
PLANAR_SIZES = (10, 100)
UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def tinkertoy_round(bench, sizes):
    """{N: median seconds of one evaluation} from one run of the bench `bench`."""
    out = subprocess.run(["cargo", "bench", "--quiet", "--bench", "lagrangian", "--", bench],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    times = {}
    for line in out.splitlines():
        cols = [c.strip() for c in line.split("│")]
        head = cols[0].replace("├─", "").replace("╰─", "").split()
        if len(cols) >= 3 and len(head) == 3 and head[0].isdigit() and int(head[0]) in sizes:
            value, unit = cols[2].split()
            times[int(head[0])] = float(value) * UNITS[unit]
    missing = [n for n in sizes if n not in times]
    if missing:
        raise SystemExit("pinocchio_aba.py: %s printed no median for N = %s" % (bench, missing))
    return times


def serial_chain(n, joint, inertia, link, name):
    """n bodies of spatial inertia `inertia`, each on its own joint made by `joint()`, the first
    at the origin and each next one `link` m along x of its parent; gravity 9.81 m/s^2 along -y."""
    import numpy as np
    import pinocchio as pin

    model = pin.Model()
    model.gravity.linear = np.array([0.0, -9.81, 0.0])
    parent = 0
    for i in range(n):
        placement = pin.SE3(np.eye(3), np.array([0.0 if i == 0 else link, 0.0, 0.0]))
        parent = model.addJoint(parent, joint(), placement, "%s%d" % (name, i))
        model.appendBodyToJoint(parent, inertia, pin.SE3.Identity())
    return model


def chain_model(n, link=0.5, width=0.05):
    """tinkertoy's `chain_3d` scene: 1 kg cuboid links (link x width x width m) on ball joints."""
    import numpy as np
    import pinocchio as pin

    ixx, iyy = 2.0 * width * width / 12.0, (link * link + width * width) / 12.0
    inertia = pin.Inertia(1.0, np.array([link / 2.0, 0.0, 0.0]), np.diag([ixx, iyy, iyy]))
    return serial_chain(n, pin.JointModelSpherical, inertia, link, "ball")


def planar_model(n, link=0.1):
    """tinkertoy's `chain` scene as Pinocchio builds it: n point masses of 1 kg, each 0.1 m along
    its own revolute-about-z joint (JointModelRZ, Pinocchio's specialised one-axis joint), the
    first joint at the pinned particle."""
    import numpy as np
    import pinocchio as pin

    mass = pin.Inertia(1.0, np.array([link, 0.0, 0.0]), np.zeros((3, 3)))
    return serial_chain(n, pin.JointModelRZ, mass, link, "rz")


def pinocchio_time(n, convention, batches=15, build=None):
    """Median over batches of the time per pin.aba call [s]."""
    import numpy as np
    import pinocchio as pin

    model = (build or chain_model)(n)
    data = model.createData()
    rng = np.random.default_rng(1)
    # Angles within ±π: a revolute joint's default limits are ±1.8e308, from which
    # randomConfiguration draws inf. (A ball joint's quaternion is drawn on the sphere.)
    q = pin.randomConfiguration(model, -np.pi * np.ones(model.nq), np.pi * np.ones(model.nq)) if n else np.zeros(0)
    if not np.all(np.isfinite(q)):
        raise SystemExit("pinocchio_aba.py: a random configuration of %d joints is not finite" % n)
    v, tau = rng.standard_normal(model.nv), np.zeros(model.nv)
    calls = max(200, 20000 // max(n, 1))
    per = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(calls):
            pin.aba(model, data, q, v, tau, convention)
        per.append((time.perf_counter() - t0) / calls)
    return statistics.median(per)


def pinocchio_round(sizes, build):
    """({N: the faster convention's time per call}, {N: which}, the call's cost) [s]."""
    import pinocchio as pin

    conventions = (pin.Convention.LOCAL, pin.Convention.WORLD)
    floor = min(pinocchio_time(0, c) for c in conventions)
    times, which = {}, {}
    for n in sizes:
        t = {c: pinocchio_time(n, c, build=build) for c in conventions}
        best = min(t, key=t.get)
        times[n], which[n] = t[best], str(best).split(".")[-1]
    return times, which, floor


def both_round(k):
    """One round: tinkertoy's bench and Pinocchio's calls, in an order alternating with k."""
    def ours():
        return (tinkertoy_round("chain_3d_evaluation", SIZES), tinkertoy_round("chain_evaluation", PLANAR_SIZES))

    def theirs():
        return (pinocchio_round(SIZES, chain_model), pinocchio_round(PLANAR_SIZES, planar_model))

    if k % 2 == 0:
        a = ours()
        return a, theirs()
    b = theirs()
    return ours(), b


def table(sizes, tt, pn, conv, floors, ours, theirs):
    print("| links | %s per link | %s per link (convention) | ratio | ratio, Pinocchio's call cost subtracted |" % (ours, theirs))
    print("|---|---|---|---|---|")
    for n in sizes:
        t = spread([r[n] / n for r in tt])
        p = spread([r[n] / n for r in pn])
        ratio = spread([a[n] / b[n] for a, b in zip(tt, pn)])
        net = spread([a[n] / (b[n] - fl) for a, b, fl in zip(tt, pn, floors)])
        used = ", ".join(sorted(set(c[n] for c in conv)))
        print("| %d | %s [%s–%s] | %s [%s–%s] (%s) | %.2f [%.2f–%.2f] | %.2f [%.2f–%.2f] |" % (
            n, ns(t[0]), ns(t[1]), ns(t[2]), ns(p[0]), ns(p[1]), ns(p[2]), used, *ratio, *net))


def spread(xs):
    return statistics.median(xs), min(xs), max(xs)


def ns(x):
    return "%.0f ns" % (x * 1e9)


def main():
    if sys.version_info < (3, 12):
        print("pinocchio_aba.py: Python %s: run it with python3.12 (as compare.py)" % platform.python_version(), file=sys.stderr)
        return 2
    rounds = int(os.environ.get("PINOCCHIO_ROUNDS", "5"))
    if not 1 <= rounds <= 100:
        print("pinocchio_aba.py: PINOCCHIO_ROUNDS = %r: must be an integer in [1, 100]" % rounds, file=sys.stderr)
        return 2
    import pinocchio as pin

    subprocess.run(["cargo", "bench", "--quiet", "--bench", "lagrangian", "--no-run"], cwd=ROOT, check=True,
                   capture_output=True)
    load_before = os.getloadavg()
    rounds_out = [both_round(k) for k in range(rounds)]
    load_after = os.getloadavg()
    cpu = platform.processor() or platform.machine()
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    print("Measured %s on %s (%d cores), %s, Python %s, pin %s; %d interleaved rounds; load average (1, 5, 15 min) "
          "%.2f %.2f %.2f before, %.2f %.2f %.2f after." % (
              datetime.date.today().isoformat(), cpu, os.cpu_count(), platform.system(), platform.python_version(),
              pin.__version__, rounds, *load_before, *load_after))
    floors = [r[1][0][2] for r in rounds_out] + [r[1][1][2] for r in rounds_out]
    f = spread(floors)
    print("")
    print("One Python call of pin.aba on a chain of no links (subtracted in the last column): %s [%s–%s]."
          % (ns(f[0]), ns(f[1]), ns(f[2])))
    for part, sizes, title, ours, theirs in (
            (0, SIZES, "The 3D chain (cuboid links on ball joints, quaternions)", "tinkertoy `lagrangian`",
             "Pinocchio ABA, JointModelSpherical"),
            (1, PLANAR_SIZES, "The planar chain (1 kg point masses 0.1 m apart on revolute joints); the baseline is "
             "Pinocchio's ABA with its specialised revolute-about-z joint (6D spatial algebra; Pinocchio has no "
             "planar algorithm), not a planar code", "tinkertoy `lagrangian` (planar tree)",
             "Pinocchio ABA, JointModelRZ")):
        print("")
        print(title + ":")
        print("")
        table(sizes, [r[0][part] for r in rounds_out], [r[1][part][0] for r in rounds_out],
              [r[1][part][1] for r in rounds_out], [r[1][part][2] for r in rounds_out], ours, theirs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
