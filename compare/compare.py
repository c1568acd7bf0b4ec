#!/usr/bin/env python3
"""Side-by-side comparison of tinkertoy with MuJoCo, pymunk (Chipmunk) and Box2D v3 on the same scenes.

Scenes (h = 1/60 s):
  A  simple pendulum, L = 1 m, m = 1 kg, theta0 = 1 rad, RK4, 10 s
     tinkertoy `lagrangian` + rk4  vs  MuJoCo hinge (point mass), integrator RK4
  B  double pendulum, unit lengths and masses, both arms horizontal, RK4, 10 s
     tinkertoy `lagrangian` + rk4  vs  MuJoCo two hinges, RK4
  C  chain of N = 10, 100, 1000 unit point masses on 0.1 m links, first pinned, released
     horizontal, 5 s
     tinkertoy `impulse` + `gauss_seidel` at 10 sweeps (sequential impulses; the exact residual
     checked once, after the last sweep, as a game engine never checks it)  vs  pymunk with
     10 iterations (Chipmunk's sequential impulses), and tinkertoy `xpbd_newton` + `envelope_ldlt`
     (the rigid cell);
     tinkertoy `soft_step` (4 substeps) + `gauss_seidel` at 1 sweep per stage  vs  Box2D v3 with
     4 substeps (its soft step, one relaxation sweep per stage; its joints at 30 Hz, tinkertoy's
     at its default 60 Hz, so tinkertoy's links are the tighter)
  D  3D chain of 10 and 100 cuboid links (0.5 x 0.05 x 0.05 m, 1 kg) on ball joints, zig-zag start,
     5 s: tinkertoy `lagrangian` + rk4 (joint coordinates, ball joints as quaternions: the same ODE
     as MuJoCo's) and `xpbd_newton` + `envelope_ldlt` (rigid to 3e-7 m)  vs  MuJoCo ball joints, RK4

Accuracy: energy error max |E(t) - E(0)| / E_scale (E_scale as in tinkertoy: m g L for A,
g (m1 L1 + m2 (L1 + L2)) for B, sum of m g x hanging depth for C), sampled every step for the
peers and every 0.05 s for tinkertoy; for C also the largest link-length error [m] and the time of
a blow-up (a link error above 10 m).

Time: every tinkertoy cell and every peer run once per round, in COMPARE_ROUNDS interleaved
rounds (default 5; tinkertoy first in odd rounds, the peers first in even ones), and each figure
is the median over the rounds with its min-max. tinkertoy's is the median wall time of one step
from `timing.csv` (serial re-runs pinned to one core, the fastest agreeing runs); a peer's is the
median of its per-step calls timed with perf_counter (each includes one Python-to-C call, about
0.1 us), next to its process CPU time per step (process_time summed over the same calls), which
preemption does not inflate. The ratio is tinkertoy / peer within each round. The load average
before and after, the date, CPU model and package versions head the table.

Run from the repository root with Python >= 3.12 (Box2D v3's bindings need it):
  python3.12 -m pip install -r compare/requirements.txt && python3.12 compare/compare.py
It builds tinkertoy in release mode, runs everything in one invocation and prints one Markdown
table on standard output.
"""

import csv
import datetime
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

H = 1.0 / 60.0
G = 9.81
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ----------------------------------------------------------------------------- tinkertoy

def tinkertoy_binary():
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    return os.path.join(ROOT, "target", "release", "tinkertoy")


def run_tinkertoy(binary, workdir, name, body):
    """Runs one experiment; returns {label: (summary row, timing row)}."""
    path = os.path.join(workdir, name + ".yaml")
    with open(path, "w") as f:
        f.write("name: %s\n%s" % (name, body))
    subprocess.run([binary, "run", path, "--reports", workdir], check=True, stdout=subprocess.DEVNULL)
    out = os.path.join(workdir, name)
    summary = list(csv.DictReader(open(os.path.join(out, "summary.csv"))))
    timing = {r["cell"]: r for r in csv.DictReader(open(os.path.join(out, "timing.csv")))}
    return [(r, timing.get(r["cell"])) for r in summary]


def tinkertoy_cells(binary, workdir):
    rows = {}
    # scenes A and B: lagrangian + rk4 at h = 1/60 s for 10 s
    rk4 = """
formulations: [{name: lagrangian}]
solvers: [{name: dense_cholesky}]
integrators: [{name: rk4}]
steps: ["1/60"]
duration: 10
sample_interval: 0.05
"""
    rows["A"] = run_tinkertoy(binary, workdir, "cmp_a", "scene: {name: pendulum, params: {theta0: 1.0}}" + rk4)[0]
    horizontal = "{theta1: 1.5707963267948966, theta2: 1.5707963267948966}"
    rows["B"] = run_tinkertoy(binary, workdir, "cmp_b", "scene: {name: double_pendulum, params: %s}" % horizontal + rk4)[0]
    c = run_tinkertoy(binary, workdir, "cmp_c", """
scene: {name: chain, params: {n: [10, 100, 1000], link: 0.1}}
formulations:
  - name: impulse
  - {name: xpbd_newton, label: "xpbd newton", params: {substeps: 1, iterations: 3, tol: 3.0e-7}}
solvers:
  - {name: gauss_seidel, label: "gauss_seidel (10 sweeps)", params: {max_iter: 10, require_convergence: false, tol: 1.0e-14, check_every: 10}}
  - name: envelope_ldlt
steps: ["1/60"]
duration: 5
sample_interval: 0.05
divergence_bound: 10
""")
    for r, t in c:
        rows[("C", r["scene"], r["formulation"], r["solver"])] = (r, t)
    # lagrangian pairs with the loop-closure solvers (a tree has no loop: the solver is unused),
    # xpbd_newton with the sparse ones: one experiment each
    chain_3d = "scene: {name: chain_3d, params: {n: [10, 100], link: 0.5, width: 0.05, zigzag: 0.5}}\n"
    common = """steps: ["1/60"]
duration: 5
sample_interval: 0.05
divergence_bound: 10
"""
    d = run_tinkertoy(binary, workdir, "cmp_d", chain_3d + """formulations: [{name: lagrangian}]
solvers: [{name: dense_cholesky}]
integrators: [{name: rk4}]
""" + common)
    d += run_tinkertoy(binary, workdir, "cmp_d_xpbd", chain_3d + """formulations:
  - {name: xpbd_newton, label: "xpbd newton", params: {substeps: 1, iterations: 3, tol: 3.0e-7}}
solvers: [{name: envelope_ldlt}]
""" + common)
    for r, t in d:
        rows[("D", r["scene"], r["formulation"])] = (r, t)
    s = run_tinkertoy(binary, workdir, "cmp_s", """
scene: {name: chain, params: {n: [10, 100, 1000], link: 0.1}}
formulations:
  - {name: soft_step, params: {substeps: 4}}
solvers:
  - {name: gauss_seidel, label: "gauss_seidel (1 sweep)", params: {max_iter: 1, require_convergence: false, tol: 1.0e-14, check_every: 1}}
steps: ["1/60"]
duration: 5
sample_interval: 0.05
divergence_bound: 10
""")
    for r, t in s:
        rows[("S", r["scene"])] = (r, t)
    return rows


# ----------------------------------------------------------------------------- peers' clock

class StepClock:
    """Times a peer's step calls: the wall time of each (perf_counter) and the process CPU time
    summed over them (process_time), so that preemption, which inflates wall time but not CPU
    time, shows as a gap between the two."""

    def __init__(self):
        self.walls, self.cpu = [], 0.0

    def step(self, call, *args):
        c0, t0 = time.process_time(), time.perf_counter()
        call(*args)
        t1, c1 = time.perf_counter(), time.process_time()
        self.walls.append(t1 - t0)
        self.cpu += c1 - c0

    def result(self):
        """(median wall time of one step, mean CPU time of one step) [s]."""
        return statistics.median(self.walls), self.cpu / len(self.walls)


# ----------------------------------------------------------------------------- MuJoCo

def mujoco_pendulums(duration=10.0):
    import mujoco

    def run(xml, qpos, e_scale):
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        d.qpos[:] = qpos
        mujoco.mj_forward(m, d)
        e0 = d.energy[0] + d.energy[1]
        steps = round(duration / H)
        worst, clock = 0.0, StepClock()
        for _ in range(steps):
            clock.step(mujoco.mj_step, m, d)
            # after an RK4 step d.energy holds the last stage's state: evaluate at the new state
            mujoco.mj_forward(m, d)
            worst = max(worst, abs(d.energy[0] + d.energy[1] - e0) / e_scale)
        return clock.result(), worst

    # point masses on massless rods: the inertia is the body's mass at its centre (a tiny
    # rotational inertia, 1e-9 kg m^2, keeps MuJoCo's inertia check satisfied)
    head = """<mujoco><option timestep="%.17g" gravity="0 0 -9.81" integrator="RK4">
    <flag energy="enable" contact="disable"/></option><worldbody>""" % H
    pend = head + """<body><joint type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 -1" mass="1" diaginertia="1e-9 1e-9 1e-9"/></body></worldbody></mujoco>"""
    dpend = head + """<body><joint type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 -1" mass="1" diaginertia="1e-9 1e-9 1e-9"/>
      <body pos="0 0 -1"><joint type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 -1" mass="1" diaginertia="1e-9 1e-9 1e-9"/></body></body></worldbody></mujoco>"""
    a = run(pend, [1.0], 1.0 * G * 1.0)
    b = run(dpend, [math.pi / 2, 0.0], G * (1.0 * 1.0 + 1.0 * 2.0))
    return a, b


def mujoco_chain_3d(n, duration=5.0, link=0.5, width=0.05, zigzag=0.5):
    """tinkertoy's chain_3d: n cuboid links (link x width x width, 1 kg) on ball joints, the first
    hung from the origin, released in a horizontal zig-zag (link i at +-zigzag from x in the x-z
    plane), gravity along -y; MuJoCo's RK4 on its joint coordinates."""
    import mujoco

    ixx = 2.0 * width * width / 12.0
    iyy = (link * link + width * width) / 12.0
    xml = ["""<mujoco><option timestep="%.17g" gravity="0 -9.81 0" integrator="RK4">
    <flag energy="enable" contact="disable"/></option><worldbody>""" % H]
    for i in range(n):
        phi = zigzag if i % 2 == 0 else -zigzag
        # body frame: origin at the joint, x along the link; Ry(-phi) in the world, so relative to
        # the previous link Ry(phi_prev - phi)
        rel = -phi if i == 0 else (-zigzag if i % 2 == 0 else zigzag) - phi
        pos = "0 0 0" if i == 0 else "%.17g 0 0" % link
        xml.append('<body pos="%s" quat="%.17g 0 %.17g 0"><joint type="ball"/>'
                   '<inertial pos="%.17g 0 0" mass="1" diaginertia="%.17g %.17g %.17g"/>'
                   % (pos, math.cos(rel / 2), math.sin(rel / 2), link / 2, ixx, iyy, iyy))
    xml.append("</body>" * n + "</worldbody></mujoco>")
    m = mujoco.MjModel.from_xml_string("".join(xml))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    e0 = d.energy[0] + d.energy[1]
    e_scale = 9.81 * link * n * n / 2.0
    steps = round(duration / H)
    clock, worst, blowup = StepClock(), 0.0, None
    for k in range(steps):
        clock.step(mujoco.mj_step, m, d)
        mujoco.mj_forward(m, d)
        e = abs(d.energy[0] + d.energy[1] - e0) / e_scale
        if not math.isfinite(e) or e > 1e3:
            blowup = (k + 1) * H
            break
        worst = max(worst, e)
    return clock.result(), worst, blowup


# ----------------------------------------------------------------------------- pymunk

def pymunk_chain(n, iterations=10, duration=5.0, link=0.1):
    import pymunk

    space = pymunk.Space()
    space.gravity = (0.0, -G)
    space.iterations = iterations
    bodies = []
    for i in range(n):
        b = pymunk.Body(1.0, float("inf"))  # a point mass: no rotation
        b.position = (i * link, 0.0)
        space.add(b)
        bodies.append(b)
    space.add(pymunk.PivotJoint(space.static_body, bodies[0], (0.0, 0.0)))
    for i in range(1, n):
        space.add(pymunk.PinJoint(bodies[i - 1], bodies[i]))
    e_scale = G * link * n * (n - 1) / 2.0  # sum of m g x depth hanging straight down

    def energy():
        return sum(0.5 * (b.velocity.x ** 2 + b.velocity.y ** 2) + G * b.position.y for b in bodies)

    positions = lambda: [(b.position.x, b.position.y) for b in bodies]  # noqa: E731
    return run_chain((space.step, H), positions, energy, e_scale, link, duration)


def run_chain(call, positions, energy, e_scale, link, duration):
    """Steps a peer's chain for `duration` by `call` = (function, *args), timed by a StepClock;
    after each step the largest link-length error (and the first mass's distance from its pin)
    and the energy error over `e_scale`. Returns the clock's (median step, CPU per step), the
    largest energy error, the largest link error [m] and the time of a blow-up (a link error
    above 10 m), if any."""
    e0 = energy()
    steps = round(duration / H)
    clock, worst_e, worst_c, blowup = StepClock(), 0.0, 0.0, None
    for k in range(steps):
        clock.step(*call)
        ps = positions()
        c = max(abs(math.hypot(ps[i][0] - ps[i - 1][0], ps[i][1] - ps[i - 1][1]) - link) for i in range(1, len(ps)))
        c = max(c, math.hypot(*ps[0]))
        worst_c = max(worst_c, c)
        worst_e = max(worst_e, abs(energy() - e0) / e_scale)
        if c > 10.0 and blowup is None:
            blowup = (k + 1) * H
            break
    return clock.result(), worst_e, worst_c, blowup


# ----------------------------------------------------------------------------- Box2D v3

def box2d_chain(n, substeps=4, duration=5.0, link=0.1):
    """Scene C in Box2D v3 with its own solver: n bodies of 1 kg (a circle of 1 cm radius that
    collides with nothing, rotation fixed: a point mass) on rigid distance joints of `link`, the
    first on a revolute joint at the origin; `substeps` substeps per step (its soft step: one
    relaxation sweep per stage), its default joint softness, sleeping off."""
    import box2d

    world = box2d.World(gravity=(0.0, -G))
    world.enable_sleep = False
    ground = world.new_body().static().position(0.0, 0.0).build()
    r = 0.01
    nothing = box2d.CollisionFilter(category=1, mask=0)
    bodies = [world.new_body().dynamic().position(i * link, 0.0).fixed_rotation()
              .circle(r, density=1.0 / (math.pi * r * r), collision_filter=nothing).build() for i in range(n)]
    world.add_revolute_joint(ground, bodies[0], (0.0, 0.0), (0.0, 0.0))
    for i in range(1, n):
        world.add_distance_joint(bodies[i - 1], bodies[i], (0.0, 0.0), (0.0, 0.0), length=link)
    e_scale = G * link * n * (n - 1) / 2.0

    def energy():
        return sum(0.5 * b.mass * (b.linear_velocity.x ** 2 + b.linear_velocity.y ** 2) + b.mass * G * b.position.y
                   for b in bodies)

    positions = lambda: [(b.position.x, b.position.y) for b in bodies]  # noqa: E731
    return run_chain((world.step, H, substeps), positions, energy, e_scale, link, duration)


# ----------------------------------------------------------------------------- rounds

def one_round(binary, workdir, peers_first):
    """Every tinkertoy cell and every peer once; the peers before tinkertoy when `peers_first`."""
    def peers():
        out = {}
        (out["A"], out["A acc"]), (out["B"], out["B acc"]) = mujoco_pendulums()
        for n in (10, 100, 1000):
            t, *acc = pymunk_chain(n)
            out[("C", n)], out[("C acc", n)] = t, acc
            t, *acc = box2d_chain(n)
            out[("S", n)], out[("S acc", n)] = t, acc
        for n in (10, 100):
            t, *acc = mujoco_chain_3d(n)
            out[("D", n)], out[("D acc", n)] = t, acc
        return out

    if peers_first:
        p = peers()
        return tinkertoy_cells(binary, workdir), p
    t = tinkertoy_cells(binary, workdir)
    return t, peers()


class Rounds:
    """The per-round times of every row: the median over rounds and its min–max."""

    def __init__(self, rounds):
        self.rounds = rounds

    def tt(self, key):
        """tinkertoy's (summary row, [median step of each round])."""
        row = self.rounds[0][0][key][0]
        steps = [float(r[0][key][1]["median_step_seconds"]) if r[0][key][1] else float("nan") for r in self.rounds]
        return row, steps

    def peer(self, key):
        """A peer's ([median step], [CPU per step]) over the rounds and its accuracy (first round)."""
        walls = [r[1][key][0] for r in self.rounds]
        cpus = [r[1][key][1] for r in self.rounds]
        acc_key = (key[0] + " acc", key[1]) if isinstance(key, tuple) else key + " acc"
        return walls, cpus, self.rounds[0][1][acc_key]


def spread(xs):
    return statistics.median(xs), min(xs), max(xs)


# ----------------------------------------------------------------------------- table

def us(seconds):
    return "%.2f µs" % (seconds * 1e6) if seconds < 1e-4 else "%.0f µs" % (seconds * 1e6)


def timed(xs):
    """The median over rounds and its min–max, in µs."""
    m, lo, hi = spread(xs)
    return "%s [%s–%s]" % (us(m), us(lo).split()[0], us(hi))


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def versions():
    from importlib import metadata
    return ", ".join("%s %s" % (p, metadata.version(p)) for p in ("mujoco", "pymunk", "box2d-python"))


def main():
    if sys.version_info < (3, 12):
        print("compare.py: Python %s: Box2D v3's bindings (box2d-python) need Python >= 3.12; run it with python3.12"
              % platform.python_version(), file=sys.stderr)
        return 2
    rounds = int(os.environ.get("COMPARE_ROUNDS", "5"))
    if not 1 <= rounds <= 100:
        print("compare.py: COMPARE_ROUNDS = %r: must be an integer in [1, 100]" % rounds, file=sys.stderr)
        return 2
    binary = tinkertoy_binary()
    load_before = os.getloadavg()
    results = []
    with tempfile.TemporaryDirectory() as workdir:
        for k in range(rounds):
            results.append(one_round(binary, workdir, peers_first=k % 2 == 1))
    load_after = os.getloadavg()
    R = Rounds(results)
    lines = []
    lines.append("Measured %s on %s (%d cores), %s, Python %s; %s. %d interleaved rounds (tinkertoy first in "
                 "odd rounds, the peers first in even ones); load average (1, 5, 15 min) %.2f %.2f %.2f before, "
                 "%.2f %.2f %.2f after." % (
                     datetime.date.today().isoformat(), cpu_model(), os.cpu_count(), platform.system(),
                     platform.python_version(), versions(), rounds, *load_before, *load_after))
    lines.append("")
    lines.append("Times per step: the median over the rounds [min–max]; tinkertoy's is its cells' pinned median "
                 "step, the peers' the median of their timed step calls; peer CPU is the process CPU time per "
                 "step. The ratio is tinkertoy / peer per round, median [min–max].")
    lines.append("")
    lines.append("| scene (h = 1/60 s) | tinkertoy cell | tinkertoy per step | tinkertoy accuracy | peer | peer per step | peer CPU per step | peer accuracy | ratio |")
    lines.append("|---|---|---|---|---|---|---|---|---|")

    def row(scene, cell, key, acc, peer, peer_key, peer_acc):
        _, tt = R.tt(key)
        walls, cpus, _ = R.peer(peer_key)
        ratio = [a / b for a, b in zip(tt, walls)]
        m, lo, hi = spread(ratio)
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %.2f [%.2f–%.2f] |"
                     % (scene, cell, timed(tt), acc, peer, timed(walls), us(statistics.median(cpus)), peer_acc, m, lo, hi))

    def chain_acc(r):
        acc = "link %.2g m, energy %.2e" % (float(r["max_drift_position"]), float(r["max_energy_error"]) if r["max_energy_error"] else float("nan"))
        if r["status"] != "ok":
            acc += ", %s at %.2f s" % (r["status"], float(r["status_time"]))
        return acc

    def peer_chain_acc(acc):
        pe, pc, pb = acc
        return "link %.2g m, energy %.2e" % (pc, pe) + ("" if pb is None else ", blows up at %.2f s" % pb)

    r, _ = R.tt("A")
    row("A: pendulum θ0 = 1 rad, RK4, 10 s", "lagrangian + dense_cholesky + rk4", "A", "energy %.2e" % float(r["max_energy_error"]),
        "MuJoCo hinge, RK4", "A", "energy %.2e" % R.peer("A")[2])
    r, _ = R.tt("B")
    row("B: double pendulum from horizontal, RK4, 10 s", "lagrangian + dense_cholesky + rk4", "B", "energy %.2e" % float(r["max_energy_error"]),
        "MuJoCo two hinges, RK4", "B", "energy %.2e" % R.peer("B")[2])
    for n in (10, 100, 1000):
        for form, solver, label in (("impulse", "gauss_seidel (10 sweeps)", "impulse + gauss_seidel, 10 sweeps"),
                                    ("xpbd newton", "envelope_ldlt", "xpbd_newton (≤ 3 it.) + envelope_ldlt")):
            key = ("C", "n=%d" % n, form, solver)
            row("C: chain N = %d, 5 s" % n, label, key, chain_acc(R.tt(key)[0]),
                "pymunk, 10 iterations", ("C", n), peer_chain_acc(R.peer(("C", n))[2]))
    for n in (10, 100, 1000):
        key = ("S", "n=%d" % n)
        row("C: chain N = %d, 5 s, Box2D's soft step" % n, "soft_step (4 substeps) + gauss_seidel, 1 sweep", key,
            chain_acc(R.tt(key)[0]), "Box2D v3, 4 substeps", ("S", n), peer_chain_acc(R.peer(("S", n))[2]))
    for n in (10, 100):
        me, mb = R.peer(("D", n))[2]
        peer_acc = "joints exact (joint coordinates), energy %.2e" % me + ("" if mb is None else ", blows up at %.2f s" % mb)
        for form, label in (("lagrangian", "lagrangian + rk4 (joint coordinates)"),
                            ("xpbd newton", "xpbd_newton (≤ 3 it.) + envelope_ldlt")):
            key = ("D", "n=%d" % n, form)
            r, _ = R.tt(key)
            if form == "lagrangian":
                acc = "joints exact (joint coordinates), energy %.2e" % float(r["max_energy_error"])
            else:
                acc = "joint gap %.2g m, energy %.2e" % (float(r["max_drift_position"]), float(r["max_energy_error"]))
            if r["status"] != "ok":
                acc += ", %s at %.2f s" % (r["status"], float(r["status_time"]))
            row("D: 3D chain, %d cuboid links on ball joints, 5 s" % n, label, key, acc,
                "MuJoCo ball joints, RK4", ("D", n), peer_acc)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
